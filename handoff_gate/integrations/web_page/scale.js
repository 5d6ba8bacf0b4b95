// textual-serve's terminal (xterm.js with its canvas renderer) draws its glyphs at
// devicePixelRatio times their size into a canvas shown at CSS size, so on a phone
// (ratio 2 or 3) only the top-left third of the screen is visible. The page pins the
// ratio at 1: the browser scales the terminal up, a little softer, but all of it shows.
Object.defineProperty(window, "devicePixelRatio", { get: () => 1 });
