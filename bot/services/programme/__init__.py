"""The programme file of `paperclub import/export`: checked, applied and read back."""
