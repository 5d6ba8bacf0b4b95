"""Modal dialogs: approve confirmation, reject reason, help, and the diff view."""
