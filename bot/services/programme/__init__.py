"""The programme file of `paperclub import/export`: checked (`document`), applied through each feature's
service (`apply`), read back (`export`), as YAML or JSON (`files`)."""
