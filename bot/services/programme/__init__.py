"""The programme file of `paperclub import/export`: checked (`document`), applied through each feature's
service (`apply`), as YAML or JSON and read back (`files`)."""
