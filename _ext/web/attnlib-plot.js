/*
 * attnlib-plot.js: canvas plotting for the live explorers: axis limits that do not jitter, ticks, the
 * RdBu colour map, the light and dark palettes (the page's theme) and Plot, one panel with axes, labels and
 * drawing primitives in data coordinates.
 *
 * A classic script: it needs attnlib-format.js loaded first, and adds window.attnlibWeb.plot.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { el } = web.format;

  // ------------------------------------------------------------------------------------------- plotting

  /** Smallest {1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8} x 10^k >= value. */
  function niceCeil(value) {
    if (!Number.isFinite(value) || value <= 0) return 1.0;
    const e = Math.floor(Math.log10(value));
    for (const m of [1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
      const c = m * 10 ** e;
      if (c >= value * (1 - 1e-12)) return c;
    }
    return 10 ** (e + 1);
  }

  /** Axis limits that grow at once but shrink only when less than `shrink` of them is used. */
  class AxisLimits {
    constructor(shrink = 0.45) {
      this.shrink = shrink;
      this.current = {};
    }

    get(name, needed, coarse = false) {
      let now = this.current[name];
      if (now === undefined || needed > now || needed < this.shrink * now) {
        now = coarse && needed > 0 ? 2 ** Math.ceil(Math.log2(needed)) : niceCeil(needed);
      }
      this.current[name] = now;
      return now;
    }
  }

  const RDBU_R = ["#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582",
    "#d6604d", "#b2182b", "#67001f"].map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));

  function rdbu(v) { // v in [-1, 1]
    const pos = Math.min(1, Math.max(0, (v + 1) / 2)) * (RDBU_R.length - 1);
    const i = Math.min(RDBU_R.length - 2, Math.floor(pos));
    const f = pos - i;
    const c = RDBU_R[i].map((a, k) => Math.round(a + f * (RDBU_R[i + 1][k] - a)));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  const DASHES = { solid: [], dash: [6, 4], dot: [2, 3], dashdot: [7, 3, 2, 3] };
  const FONT = "11px system-ui, sans-serif";

  // ------------------------------------------------------------------------- light and dark themes

  /**
   * The page's colour theme: pydata-sphinx-theme sets data-theme="dark" or "light" on <html> (resolving its
   * "auto" mode from the system's preference). Dark: the canvas takes the theme's dark background, black ink
   * turns light, white fills turn dark and area fills are laid thinner, so that every mark keeps its contrast.
   */
  const PALETTES = {
    light: { paper: "#ffffff", ink: "#000000", text: "#333333", grid: "rgba(0,0,0,0.08)", fillAlpha: 1 },
    dark: { paper: "#121212", ink: "#e6e6e6", text: "#d0d4d9", grid: "rgba(255,255,255,0.14)", fillAlpha: 0.35 },
  };
  const BLACK = new Set(["#000", "#000000", "black"]);
  const WHITE = new Set(["#fff", "#ffffff", "white"]);
  // On the dark paper the book's line colours (attnlib.plotting.COLORS, matplotlib's) are lightened to a
  // contrast of 6:1 or more.
  const LIGHTER = { "#1f77b4": "#5aa9e6", "#d62728": "#ff6b6b", "#2ca02c": "#4cc94c", "#7f7f7f": "#a0a0a0",
    "#555": "#a0a0a0" };

  function theme() {
    const root = global.document && global.document.documentElement;
    return root && root.dataset.theme === "dark" ? "dark" : "light";
  }

  function palette() {
    return PALETTES[theme()];
  }

  /** A colour as drawn in the current theme: black is the ink, white the paper, the line colours lighter in
   * the dark theme, others unchanged. */
  function ink(color) {
    const p = palette();
    const key = String(color).toLowerCase();
    if (BLACK.has(key)) return p.ink;
    if (WHITE.has(key)) return p.paper;
    return theme() === "dark" && key in LIGHTER ? LIGHTER[key] : color;
  }

  function ticks(lo, hi, count = 5) {
    const span = hi - lo;
    if (!(span > 0)) return { values: [lo], step: 1 };
    const raw = span / count;
    const e = Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * 10 ** e).find((s) => s >= raw * 0.999);
    const values = [];
    for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
      values.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    return { values, step };
  }

  /** Ticks at whole numbers (positions 1..T). */
  function integerTicks(lo, hi, count = 6) {
    const raw = (hi - lo) / count;
    const step = Math.max(1, [1, 2, 5, 10, 20, 50].find((s) => s >= raw) || 100);
    const values = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) if (v >= 1) values.push(v);
    return { values, step };
  }

  function tickLabel(v, step) {
    const e = Math.floor(Math.log10(step) + 1e-9);
    const m = step / 10 ** e;
    return v.toFixed(Math.max(0, -e + (Math.abs(m - 2.5) < 1e-9 ? 1 : 0)));
  }

  /** One panel: a canvas with axes, ticks, labels and a few drawing primitives (data coordinates). */
  class Plot {
    constructor(opts) {
      this.opts = opts;
      this.canvas = el("canvas", { role: "img", "aria-label": opts.aria || opts.title || "figure" });
      this.ctx = this.canvas.getContext("2d");
      this.margin = { left: 50, right: 12, top: 22, bottom: 36 };
    }

    resize(width, height) {
      const dpr = global.devicePixelRatio || 1;
      this.width = width;
      this.height = height;
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    }

    X(x) {
      const m = this.margin;
      return m.left + (x - this.xlim[0]) / (this.xlim[1] - this.xlim[0]) * (this.width - m.left - m.right);
    }

    Y(y) {
      const m = this.margin;
      const f = (y - this.ylim[0]) / (this.ylim[1] - this.ylim[0]);
      return this.height - m.bottom - (this.yflip ? 1 - f : f) * (this.height - m.top - m.bottom);
    }

    /** The title in lines that fit the panel's width (broken after ", " or ": "), at most three. */
    titleLines(text) {
      const c = this.ctx;
      c.font = FONT;
      const room = this.width - 8;
      const words = text.split(/(?<=, |: )/);
      const lines = [""];
      for (const word of words) {
        const last = lines.length - 1;
        if (lines[last] && c.measureText(lines[last] + word).width > room && lines.length < 3) lines.push(word);
        else lines[last] += word;
      }
      return lines.map((line) => line.trim());
    }

    begin(xlim, ylim, { title, grid = true, yflip = false, xticks, yticks } = {}) {
      const c = this.ctx;
      const m = this.margin;
      const head = title !== undefined ? title : this.opts.title;
      const lines = head ? this.titleLines(head) : [];
      m.top = 9 + 13 * Math.max(1, lines.length);
      this.xlim = xlim;
      this.ylim = ylim;
      this.yflip = yflip;
      c.save();
      const p = palette();
      this.palette = p;
      c.clearRect(0, 0, this.width, this.height);
      c.fillStyle = p.paper;
      c.fillRect(0, 0, this.width, this.height);
      c.font = FONT;
      c.fillStyle = p.text;
      c.strokeStyle = p.text;
      const nx = Math.max(3, Math.round((this.width - 60) / 70));
      const ny = Math.max(3, Math.round((this.height - 60) / 45));
      const xt = xticks || (this.opts.integer ? integerTicks(xlim[0], xlim[1], nx + 2) : ticks(xlim[0], xlim[1], nx));
      const yt = yticks || (this.opts.integer === "both" ? integerTicks(ylim[0], ylim[1], ny + 2)
        : ticks(ylim[0], ylim[1], ny));
      c.textAlign = "center";
      c.textBaseline = "top";
      for (const v of xt.values) {
        const px = this.X(v);
        if (grid) this.gridLine(px, m.top, px, this.height - m.bottom);
        c.fillText(tickLabel(v, xt.step), px, this.height - m.bottom + 4);
      }
      c.textAlign = "right";
      c.textBaseline = "middle";
      for (const v of yt.values) {
        const py = this.Y(v);
        if (grid) this.gridLine(m.left, py, this.width - m.right, py);
        c.fillText(tickLabel(v, yt.step), m.left - 5, py);
      }
      c.textAlign = "center";
      c.textBaseline = "bottom";
      if (this.opts.xlabel) c.fillText(this.opts.xlabel, (m.left + this.width - m.right) / 2, this.height - 2);
      if (this.opts.ylabel) {
        c.save();
        c.translate(11, (m.top + this.height - m.bottom) / 2);
        c.rotate(-Math.PI / 2);
        c.textBaseline = "middle";
        c.fillText(this.opts.ylabel, 0, 0);
        c.restore();
      }
      c.textBaseline = "top";
      lines.forEach((line, i) => c.fillText(line, Math.max(this.width / 2, Math.min((m.left + this.width - m.right) / 2,
        this.width - 4 - c.measureText(line).width / 2)), 3 + 13 * i));
      c.beginPath();
      c.rect(m.left, m.top, this.width - m.left - m.right, this.height - m.top - m.bottom);
      c.clip();
    }

    gridLine(x0, y0, x1, y1) {
      const c = this.ctx;
      c.save();
      c.strokeStyle = this.palette.grid;
      c.beginPath();
      c.moveTo(x0, y0);
      c.lineTo(x1, y1);
      c.stroke();
      c.restore();
    }

    end() {
      const c = this.ctx;
      const m = this.margin;
      c.restore();
      c.save();
      c.strokeStyle = this.palette.text;
      c.lineWidth = 1;
      c.beginPath();
      c.moveTo(m.left, m.top);
      c.lineTo(m.left, this.height - m.bottom);
      c.lineTo(this.width - m.right, this.height - m.bottom);
      c.stroke();
      c.restore();
    }

    stroke(style, draw) {
      const c = this.ctx;
      c.save();
      c.strokeStyle = ink(style.color || "#000");
      c.lineWidth = style.width || 1.5;
      c.setLineDash(DASHES[style.dash || "solid"]);
      c.beginPath();
      draw(c);
      c.stroke();
      c.restore();
    }

    line(xs, ys, style = {}) {
      this.stroke(style, (c) => {
        let pen = false;
        for (let i = 0; i < xs.length; i++) {
          if (!Number.isFinite(ys[i]) || !Number.isFinite(xs[i])) { pen = false; continue; }
          if (pen) c.lineTo(this.X(xs[i]), this.Y(ys[i]));
          else c.moveTo(this.X(xs[i]), this.Y(ys[i]));
          pen = true;
        }
      });
    }

    vline(x, style = {}) {
      if (!Number.isFinite(x)) return;
      this.stroke(style, (c) => {
        c.moveTo(this.X(x), this.margin.top);
        c.lineTo(this.X(x), this.height - this.margin.bottom);
      });
    }

    hline(y, style = {}) {
      if (!Number.isFinite(y)) return;
      this.stroke(style, (c) => {
        c.moveTo(this.margin.left, this.Y(y));
        c.lineTo(this.width - this.margin.right, this.Y(y));
      });
    }

    bars(lo, hi, heights, color) {
      const c = this.ctx;
      const width = (hi - lo) / heights.length;
      c.save();
      c.fillStyle = color;
      c.strokeStyle = this.palette.paper;
      c.lineWidth = 0.5;
      heights.forEach((h, i) => {
        if (!(h > 0)) return;
        const x0 = this.X(lo + i * width);
        const x1 = this.X(lo + (i + 1) * width);
        c.fillRect(x0, this.Y(h), x1 - x0, this.Y(0) - this.Y(h));
        c.strokeRect(x0, this.Y(h), x1 - x0, this.Y(0) - this.Y(h));
      });
      c.restore();
    }

    polygon(xs, ys, fill) {
      const c = this.ctx;
      c.save();
      c.fillStyle = fill;
      c.globalAlpha = this.palette.fillAlpha;
      c.beginPath();
      xs.forEach((x, i) => (i ? c.lineTo(this.X(x), this.Y(ys[i])) : c.moveTo(this.X(x), this.Y(ys[i]))));
      c.closePath();
      c.fill();
      c.restore();
    }

    marker(x, y, { shape = "o", size = 4, color = "#000", fill, edge } = {}) {
      if (!Number.isFinite(x) || !Number.isFinite(y)) return;
      const c = this.ctx;
      const px = this.X(x);
      const py = this.Y(y);
      c.save();
      c.beginPath();
      if (shape === "s") c.rect(px - size, py - size, 2 * size, 2 * size);
      else if (shape === "v") { c.moveTo(px - size, py - size); c.lineTo(px + size, py - size); c.lineTo(px, py + size); c.closePath(); }
      else c.arc(px, py, size, 0, 2 * Math.PI);
      c.fillStyle = ink(fill === undefined ? color : fill);
      if (fill !== "none") c.fill();
      c.strokeStyle = ink(edge || color);
      c.lineWidth = 1.2;
      c.stroke();
      c.restore();
    }

    errorbar(x, y, err, style = {}) {
      if (!Number.isFinite(err) || !Number.isFinite(y)) return;
      this.stroke({ color: style.color, width: 1 }, (c) => {
        c.moveTo(this.X(x), this.Y(y - err));
        c.lineTo(this.X(x), this.Y(y + err));
      });
      this.marker(x, y, style);
    }

    heatmap(M, vmin, vmax) {
      const c = this.ctx;
      const T = M.length;
      c.save();
      for (let i = 0; i < T; i++) {
        for (let j = 0; j < T; j++) {
          c.fillStyle = rdbu((2 * (M[i][j] - vmin)) / (vmax - vmin) - 1);
          const x0 = this.X(j + 0.5);
          const y0 = this.Y(i + 0.5);
          c.fillRect(x0, y0, this.X(j + 1.5) - x0 + 0.5, this.Y(i + 1.5) - y0 + 0.5);
        }
      }
      c.restore();
    }
  }

  web.plot = { Plot, AxisLimits, theme, palette, ink };
})(window);
