/*
 * book.js: what the book's pages do on a narrow screen (served on every page by _ext/offline_assets.py, next
 * to book.css).
 *
 * A table of at most MAX_COLUMNS columns that is wider than its box is stacked (class attn-stacked, book.css):
 * each row a block, each cell under its column's name, so that no column is ever off screen (the results at a
 * glance, the notation). A wider table keeps its columns side by side and scrolls inside its box, with a scroll
 * cue. Checked once MathJax has typeset the cells (their width depends on it) and again when the window is
 * resized. A classic script, no library.
 */
(function () {
  "use strict";

  const MAX_COLUMNS = 3;

  /** Each body cell gets its column's name (data-label); returns the number of columns (0: no header). */
  function label(table) {
    const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, i) => {
        if (names[i]) cell.dataset.label = names[i];
      });
    }
    return names.length;
  }

  function fit() {
    for (const table of document.querySelectorAll("article.bd-article table")) {
      if (table.closest(".attnlib-explorer")) continue; // the explorers fit their own read-outs
      if (!table.dataset.columns) table.dataset.columns = String(label(table));
      const columns = Number(table.dataset.columns);
      if (!columns || columns > MAX_COLUMNS) continue;
      table.classList.remove("attn-stacked");
      if (table.getBoundingClientRect().width > table.parentElement.clientWidth + 1) table.classList.add("attn-stacked");
    }
  }

  let pending = false;
  function refit() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(() => {
      pending = false;
      fit();
    });
  }

  function start() {
    const mathjax = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    if (mathjax) mathjax.then(fit, fit);
    else fit();
    window.addEventListener("resize", refit);
  }

  if (document.readyState === "complete") start();
  else window.addEventListener("load", start);
})();
