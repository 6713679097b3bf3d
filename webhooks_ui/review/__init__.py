"""Read-side composition for the review pages: what a page shows, built from
selectors and the pure domain modules, so views stay thin."""
