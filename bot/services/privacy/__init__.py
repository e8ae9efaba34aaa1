"""A member's data in the member's hands, and every kept thing with a purpose and a lifetime: the one list
of what the bot keeps (``kinds``), a member's overview, export and deletion (``member``), a server's data
and the servers the bot left (``servers``), the lifetimes of records (``lifetimes``)."""
