"""Everything /setup show prints, read across features in one statement (`actions`)."""
