"""Sessions: the rules for their fields (`rules`), a new session or an edit as checked input (`draft`),
a stored session as plain values (`info`), creating, editing, cancelling and looking one up (`store`),
lists and subscriptions (`queries`), the Discord events' claims (`event_claims`)."""
