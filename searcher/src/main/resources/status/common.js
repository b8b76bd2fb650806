'use strict';
// Small helpers shared by the status and cluster pages (no external libraries).
const Mosaic = {
  el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v; else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  },
  bytes(n) {
    if (n == null) return '–';
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return n.toFixed(i ? 1 : 0) + ' ' + u[i];
  },
  seconds(s) {
    if (s == null || Number.isNaN(s)) return '–';
    if (s < 1) return (s * 1000).toFixed(1) + ' ms';
    if (s < 120) return s.toFixed(1) + ' s';
    if (s < 7200) return (s / 60).toFixed(1) + ' min';
    return (s / 3600).toFixed(1) + ' h';
  },
  async json(url) {
    const r = await fetch(url, { cache: 'no-store' });
    if (!r.ok && r.status !== 503) throw new Error(url + ': HTTP ' + r.status);
    return r.json();
  },
  // Percentile from cumulative histogram buckets [[le, count], ...] (linear within a bucket).
  percentile(buckets, q) {
    if (!buckets.length) return null;
    const total = buckets[buckets.length - 1][1];
    if (total <= 0) return null;
    const rank = q * total;
    let prevLe = 0, prevCount = 0;
    for (const [le, c] of buckets) {
      if (c >= rank) {
        if (!Number.isFinite(le)) return prevLe;
        const span = c - prevCount;
        return span <= 0 ? le : prevLe + (le - prevLe) * ((rank - prevCount) / span);
      }
      prevLe = le; prevCount = c;
    }
    return prevLe;
  },
  // A line chart as inline SVG: series = [{name, color, points: [[t, v], ...]}].
  chart(svg, series, windowSeconds, unit) {
    const W = 640, H = 180, L = 48, B = 20;
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('width', W); svg.setAttribute('height', H);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const ns = 'http://www.w3.org/2000/svg';
    const now = Date.now() / 1000;
    let max = 1;
    for (const s of series) for (const [, v] of s.points) if (v != null && v > max) max = v;
    max *= 1.1;
    const x = t => L + (W - L - 8) * (1 - (now - t) / windowSeconds);
    const y = v => (H - B) - (H - B - 8) * (v / max);
    const add = (tag, attrs, text) => {
      const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text != null) e.textContent = text;
      svg.appendChild(e); return e;
    };
    for (let i = 0; i <= 4; i++) {
      const v = max * i / 4;
      add('line', { x1: L, x2: W - 8, y1: y(v), y2: y(v), stroke: '#eee' });
      add('text', { x: 2, y: y(v) + 4, 'font-size': 10, fill: '#666' }, v.toFixed(v < 10 ? 1 : 0) + unit);
    }
    add('text', { x: L, y: H - 4, 'font-size': 10, fill: '#666' }, `-${Math.round(windowSeconds / 60)} min`);
    add('text', { x: W - 30, y: H - 4, 'font-size': 10, fill: '#666' }, 'now');
    let legendX = L + 80;
    for (const s of series) {
      const pts = s.points.filter(([t, v]) => v != null && now - t <= windowSeconds)
        .map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
      if (pts) add('polyline', { points: pts, fill: 'none', stroke: s.color, 'stroke-width': 2, 'class': 'series', 'data-name': s.name });
      add('rect', { x: legendX, y: H - 12, width: 10, height: 4, fill: s.color });
      add('text', { x: legendX + 14, y: H - 8, 'font-size': 10 }, s.name);
      legendX += 14 + 7 * s.name.length + 16;
    }
  },
};
