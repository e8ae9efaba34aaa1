"""Calendar files (RFC 5545) of sessions and series, built with icalendar (`ics`)."""
