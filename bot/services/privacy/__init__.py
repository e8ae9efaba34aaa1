"""A member's data in the member's hands, and every kept thing with a purpose and a lifetime (``kinds``)."""
