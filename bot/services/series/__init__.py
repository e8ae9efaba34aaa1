"""Series: a weekly slot's rule and every check of what organizers type for it (`rules`), a new series or an
edit as checked input (`drafts`), plain values (`info`), the guild's series settings and finding a series
(`store`), its weeks in the store (`weeks`), the changes organizers make (`changes`), the daily horizon job
(`horizon`), the organizers' nudges (`nudges`) and presenters (`presenters`)."""
