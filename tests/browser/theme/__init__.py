"""Browser tests of the page shell: navigation drawers, colour mode, search, 404, focus rings,
axe-core, header buttons."""
