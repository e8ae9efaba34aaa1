"""A member's data in the member's hands, and every kept thing with a purpose and a lifetime: the one list
(``kinds``), a member's rows (``rows``), overview, export and deletion (``actions``), a server's data and the
servers the bot left (``servers``), the lifetimes of records (``lifetimes``)."""
