"""Sessions: the rules for their fields (`rules`), a stored session as plain values (`info`), creating,
editing, cancelling and looking one up (`store`), lists and subscriptions (`queries`), calendar files
(`calendar`)."""
