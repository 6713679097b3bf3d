// The draft editor's small enhancements; the Form and YAML tabs work without them.
// Loaded from /static/ by draft_editor.html only (the CSP forbids inline scripts).
(() => {
  if (!window.htmx) return;
  // When a swap brings back an element with the same id (the whole form after
  // "Add rule"), htmx copies some attributes from the old element to settle it.
  // Copying "style" (a textarea someone resized) is an inline style set by
  // script, which the Content-Security-Policy (style-src 'self') refuses.
  htmx.config.attributesToSettle = htmx.config.attributesToSettle.filter(
    (name) => name !== "style",
  );

  // Renaming a new configuration renames its draft's suggested title
  // ("Create <name>"); the propose form was rendered before, so follow it
  // there too, unless the author has typed a title of their own.
  document.body.addEventListener("htmx:afterSettle", () => {
    const heading = document.getElementById("draft-heading");
    const input = document.getElementById("propose-title");
    if (!heading || !input) return;
    const suggested = heading.dataset.title;
    if (suggested === undefined || suggested === input.dataset.suggested) return;
    if (input.value === input.dataset.suggested) input.value = suggested;
    input.dataset.suggested = suggested;
  });
})();
