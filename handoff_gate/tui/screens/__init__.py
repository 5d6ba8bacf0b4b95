"""Screens: the review screen (the main view), and the dialogs and views pushed over it."""
