"""Policy rules that decide the calls nobody needs to see: ``[[auto]]`` tables (``auto``),
matched by a real shell parser (``shell``) against what a handoff asks (``judge``)."""
