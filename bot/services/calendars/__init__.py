"""Calendar files (RFC 5545) of sessions and series: the .ics builder, series as RRULE (`ics`), and its
content lines: escaping, folding (`icslines`)."""
