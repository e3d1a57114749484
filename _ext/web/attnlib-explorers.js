/*
 * attnlib-explorers.js: turns every <div class="attnlib-explorer"> of a page (written by
 * attnlib.webexplorer.embed when the chapter executed) into a live figure: controls, canvas panels, a legend
 * and a read-out, recomputed with window.attnlibTheory (attnlib-theory.js, loaded first) at every move of a
 * control. Simulated overlays come precomputed in the block's JSON and are shown whenever the controls sit
 * on a simulated setting.
 *
 * The widget and the boot; loaded last, after the theory (attnlib-theory-*.js, attnlib-theory.js) and the
 * explorers' own scripts, which share code through window.attnlibWeb: attnlib-format.js (numbers, text),
 * attnlib-plot.js (canvas panels, light and dark palettes), attnlib-kinds-weights.js,
 * attnlib-kinds-spectrum.js, attnlib-kinds-spikes.js, attnlib-kinds-recovery.js, attnlib-kinds-primer.js
 * and attnlib-kinds-heads.js (the kinds, window.attnlibWeb.kinds).
 *
 * A classic script (works from file://). It defines window.attnlibExplorers = {instances, boot, format}.
 * Each figure's root element carries data-ready, data-redraws and data-state (for tests); every read-out
 * row carries data-key and data-values (the full-precision numbers behind the rounded text). The figures
 * follow the page's light or dark theme (data-theme on <html>) and redraw when it switches.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { fmt, sig, el } = web.format;
  const { Plot, AxisLimits, ink } = web.plot;
  const KINDS = web.kinds;

  // ----------------------------------------------------------------------------------------- the widget

  function swatch(kind, shown) {
    const color = ink(shown);
    const svg = (body) => `<svg width="22" height="10" aria-hidden="true">${body}</svg>`;
    const dash = { line: "", dash: "5 3", dot: "1.5 2.5", dashdot: "6 2 1.5 2" }[kind];
    if (dash !== undefined) return svg(`<line x1="1" y1="5" x2="21" y2="5" stroke="${color}" stroke-width="2" stroke-dasharray="${dash}"/>`);
    if (kind === "patch") return svg(`<rect x="3" y="1" width="16" height="8" fill="${color}"/>`);
    if (kind === "s") return svg(`<rect x="7" y="1.5" width="7" height="7" fill="${ink("#fff")}" stroke="${color}" stroke-width="1.3"/>`);
    if (kind === "v") return svg(`<path d="M6 1 L16 1 L11 9 Z" fill="${color}"/>`);
    return svg(`<circle cx="11" cy="5" r="4" fill="${color}" stroke="${ink("#000")}" stroke-width="1"/>`);
  }

  class Explorer {
    constructor(root, data) {
      if (!KINDS[data.kind]) throw new Error(`unknown explorer kind ${data.kind}`);
      Object.assign(this, KINDS[data.kind]);
      this.root = root;
      this.data = data;
      this.colors = data.colors;
      this.defaults = Object.assign({}, data.state);
      this.state = Object.assign({}, data.state);
      this.limits = new AxisLimits();
      this.timings = [];
      this.redraws = 0;
      this.build();
      this.layout();
      this.redraw(false);
      if (global.ResizeObserver) {
        new global.ResizeObserver(() => {
          if (Math.abs(this.root.clientWidth - this.width) > 2) {
            this.layout();
            this.redraw(false);
          }
        }).observe(this.root);
      }
      root.dataset.ready = "1";
    }

    build() {
      const root = this.root;
      root.querySelectorAll(".attnlib-explorer-fallback").forEach((n) => n.remove());
      this.controlsBox = el("div", { class: "ax-controls" });
      this.inputs = {};
      for (const row of this.data.controls) {
        const line = el("div", { class: "ax-row" });
        for (const spec of row) line.append(this.control(spec));
        this.controlsBox.append(line);
      }
      const reset = el("button", { type: "button", class: "ax-reset", text: "reset", title: "back to the default setting" });
      reset.addEventListener("click", () => {
        this.limits = new AxisLimits();
        this.update(Object.assign({}, this.defaults));
      });
      this.controlsBox.lastChild.append(reset);
      this.figure = el("div", { class: "ax-figure" });
      this.plots = this.panels.map((p) => new Plot(p));
      this.plots.forEach((p) => this.figure.append(p.canvas));
      this.legendBox = el("div", { class: "ax-legend" });
      this.readoutBox = el("table", { class: "ax-readout" });
      this.message = el("div", { class: "ax-message", role: "status" });
      root.append(this.controlsBox, this.figure, this.legendBox, this.readoutBox, this.message);
      this.sync();
    }

    control(spec) {
      const name = spec.name;
      const box = el(spec.kind === "toggle" ? "div" : "label", { class: "ax-control", "data-control": name,
        title: spec.help || "" });
      box.append(el("span", { class: "ax-label", text: spec.label }));
      let input;
      if (spec.kind === "float" || spec.kind === "int") {
        input = el("input", { type: "range", min: "0", step: "1", "aria-label": spec.label });
        const out = el("output", { class: "ax-value" });
        input.addEventListener("input", () => this.update({ [name]: this.sliderValues(spec)[Number(input.value)] }));
        box.append(input, out);
        this.inputs[name] = { spec, input, out };
      } else if (spec.kind === "dropdown") {
        input = el("select", { "aria-label": spec.label });
        for (const [value, help] of spec.options) input.append(el("option", { value, text: `${value}: ${help}` }));
        input.addEventListener("change", () => this.update({ [name]: input.value }));
        box.append(input);
        this.inputs[name] = { spec, input };
      } else if (spec.kind === "toggle") {
        input = el("span", { class: "ax-toggle", role: "group", "aria-label": spec.label });
        for (const [value, help] of spec.options) {
          const b = el("button", { type: "button", "data-value": value, title: help, text: value });
          b.addEventListener("click", (event) => { event.preventDefault(); this.update({ [name]: value }); });
          input.append(b);
        }
        box.append(input);
        this.inputs[name] = { spec, input };
      } else {
        input = el("input", { type: "checkbox" });
        input.addEventListener("change", () => this.update({ [name]: input.checked }));
        box.prepend(input);
        this.inputs[name] = { spec, input };
      }
      return box;
    }

    sliderValues(spec) {
      if (spec.values) return spec.values;
      const bound = (name) => (name in this.state ? this.state[name] : this.data.fixed[name]);
      const high = typeof spec.high === "string" ? bound(spec.high) : spec.high;
      return Array.from({ length: high - spec.low + 1 }, (_, i) => spec.low + i);
    }

    sync() { // controls show the state; hide what does not apply
      for (const [name, { spec, input, out }] of Object.entries(this.inputs)) {
        const value = this.state[name];
        if (spec.kind === "float" || spec.kind === "int") {
          const values = this.sliderValues(spec);
          input.max = String(values.length - 1);
          input.value = String(values.indexOf(value));
          input.setAttribute("aria-valuetext", String(value));
          out.textContent = String(value);
        } else if (spec.kind === "dropdown") {
          input.value = value;
        } else if (spec.kind === "toggle") {
          input.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.value === value)));
        } else {
          input.checked = value;
        }
        const when = spec.shown_when;
        const shown = !when || !(when[0] in this.state) || when[1].includes(this.state[when[0]]);
        input.closest(".ax-control").hidden = !shown;
      }
    }

    update(changes) {
      const next = Object.assign({}, this.state, changes);
      for (const { spec } of Object.values(this.inputs)) { // a slider bounded by a field (L by T) follows it
        if (typeof spec.high === "string" && spec.high in changes && !(spec.name in changes)) {
          next[spec.name] = Math.min(next[spec.name], next[spec.high]);
        }
      }
      const previous = this.state;
      this.state = next;
      this.sync();
      if (!this.redraw(true)) {
        this.state = previous;
        this.sync();
      }
    }

    /**
     * Panels side by side on a wide screen; on a narrow one (a phone), stacked, each as wide as the column and
     * about 0.6 of that tall (a square panel at most 240 px), so that the controls and the plot fit a screen.
     */
    layout() {
      const width = Math.max(240, this.root.clientWidth || 700);
      this.width = this.root.clientWidth;
      const total = this.panels.reduce((a, p) => a + p.ratio, 0);
      const narrow = width < 560;
      this.root.classList.toggle("ax-narrow", narrow);
      this.plots.forEach((plot, i) => {
        const square = this.panels[i].square;
        if (narrow) {
          const side = Math.min(width, 240);
          plot.resize(square ? side : width, square ? side : Math.min(this.height, Math.max(180, Math.round(0.58 * width))));
          return;
        }
        const w = Math.floor((width - 4 * (this.panels.length - 1)) * this.panels[i].ratio / total);
        plot.resize(w, square ? Math.min(this.height, w + 20) : this.height);
      });
      if (this.readoutBox) this.fitReadout();
    }

    redraw(timed) {
      const t0 = global.performance.now();
      try {
        const th = this.theory(this.state, this.data.fixed);
        this.draw(this.plots, th, this.state);
        this.showLegend(this.legend(th, this.state));
        this.showReadout(this.readout(th, this.state));
        this.message.textContent = "";
      } catch (err) {
        this.message.textContent = String(err.message || err);
        return false;
      } finally {
        if (timed) this.timings.push(global.performance.now() - t0);
      }
      this.redraws += 1;
      this.root.dataset.redraws = String(this.redraws);
      this.root.dataset.state = JSON.stringify(this.state);
      this.root.dataset.theme = web.plot.theme();
      return true;
    }

    showLegend(items) {
      const html = items.map(([kind, color, label]) => `<span class="ax-item">${swatch(kind, color)}${escape(label)}</span>`).join("");
      if (html !== this.legendHTML) {
        this.legendBox.innerHTML = html;
        this.legendHTML = html;
      }
    }

    showReadout(rows) {
      const header = typeof this.header === "function" ? this.header(this.state) : this.header;
      this.readoutData = { header, rows };
      this.fitReadout();
    }

    /**
     * The read-out as a table: one row per entry. When it is wider than the figure (a phone), its few entries
     * become columns and its columns rows (transposed), or, with many entries, each row is stacked: its name,
     * then its values two by two after their column's names (ax-stacked). No column is ever cut off.
     */
    fitReadout() {
      if (!this.readoutData) return;
      const box = this.readoutBox;
      const wide = () => box.scrollWidth > this.root.clientWidth + 1;
      box.classList.remove("ax-stacked");
      this.fillReadout(false);
      if (!this.readoutData.header || !wide()) return;
      if (this.fillReadout(true) && !wide()) return;
      this.fillReadout(false);
      box.classList.add("ax-stacked");
    }

    /** Fill the read-out table, transposed or not; false (and nothing done) if it cannot be transposed. */
    fillReadout(transposed) {
      const { header, rows } = this.readoutData;
      const box = this.readoutBox;
      const full = header ? rows.filter((row) => row.cells.length === header.length) : rows;
      if (transposed && (full.length < 1 || full.length > 4)) return false;
      box.textContent = "";
      box.classList.toggle("ax-transposed", transposed);
      const values = (row) => JSON.stringify(row.values.map((v) => (Number.isFinite(v) ? v : null)));
      if (transposed) {
        box.append(el("tr", { class: "ax-header" }, [header[0], ...full.map((r) => r.cells[0])].map((h) => el("th", { text: h }))));
        header.slice(1).forEach((name, j) => box.append(el("tr", {}, [el("th", { text: name }),
          ...full.map((row) => el("td", { text: row.cells[j + 1] }))])));
        for (const row of rows.filter((r) => !full.includes(r))) {
          box.append(el("tr", { "data-key": row.key, "data-values": values(row) }, [el("th", { text: row.cells[0] }),
            el("td", { text: row.cells.slice(1).filter(Boolean).join("; "), colspan: String(full.length) })]));
        }
        return true;
      }
      if (header) box.append(el("tr", { class: "ax-header" }, header.map((h) => el("th", { text: h }))));
      for (const row of rows) {
        const tr = el("tr", { "data-key": row.key, "data-values": values(row) });
        const span = header ? header.length - row.cells.length + 1 : 1;
        row.cells.forEach((c, i) => {
          const cell = i === row.cells.length - 1 && span > 1 ? { text: c, colspan: String(span) } : { text: c };
          if (header && i > 0 && span === 1) cell["data-label"] = header[i];
          tr.append(el("td", cell));
        });
        box.append(tr);
      }
      return true;
    }
  }

  function escape(text) {
    return String(text).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[ch]));
  }

  const instances = [];

  function boot() {
    for (const root of document.querySelectorAll(".attnlib-explorer")) {
      if (root.dataset.ready || root.dataset.failed) continue;
      try {
        const script = root.querySelector("script.attnlib-explorer-data");
        instances.push(new Explorer(root, JSON.parse(script.textContent)));
      } catch (err) {
        root.dataset.failed = "1";
        root.append(el("p", { class: "ax-message", text: `This interactive figure could not start: ${err.message || err}` }));
        global.console.error(err);
      }
    }
  }

  /** Redraw every figure in the page's new colours when the theme switches between light and dark. */
  function followTheme() {
    if (!global.MutationObserver) return;
    new global.MutationObserver(() => {
      for (const explorer of instances) {
        explorer.legendHTML = null;
        explorer.redraw(false);
      }
    }).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  }

  global.attnlibExplorers = { instances, boot, format: fmt, sig };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
  followTheme();
})(window);
