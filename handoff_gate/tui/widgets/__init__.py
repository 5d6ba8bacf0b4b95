"""Widgets of the approval app; none of them parses payload text as markup."""
