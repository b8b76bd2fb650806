'use strict';
// Small helpers shared by the status and cluster pages (no external libraries).
const Mosaic = {
  el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null) continue;
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c != null) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
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
    if (s < 1) return (s * 1000).toFixed(s < 0.01 ? 2 : 1) + ' ms';
    if (s < 120) return s.toFixed(1) + ' s';
    if (s < 7200) return (s / 60).toFixed(1) + ' min';
    if (s < 172800) return (s / 3600).toFixed(1) + ' h';
    return (s / 86400).toFixed(1) + ' d';
  },
  millis(ms) { return ms == null ? '–' : Mosaic.seconds(ms / 1000); },
  // Versions are built at clock milliseconds (max(previous + 1, now)): show those as times.
  isTime(v) { return v != null && v >= 1e12 && v < 1e14; },
  time(ms) {
    const d = new Date(ms);
    const today = new Date().toDateString() === d.toDateString();
    const hms = d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
    return today ? hms : d.toISOString().slice(0, 10) + ' ' + hms;
  },
  version(v) {
    if (v == null) return '–';
    return Mosaic.isTime(v) ? Mosaic.time(v) : 'v' + v;
  },
  // A version with its age at `nowMs` when it is a time: "22:41:07.123 (12.0 s old)".
  versionAge(v, nowMs) {
    if (v == null) return '–';
    return Mosaic.isTime(v) ? `${Mosaic.time(v)} (${Mosaic.seconds(Math.max(0, nowMs - v) / 1000)} old)` : 'v' + v;
  },
  async json(url) {
    const r = await fetch(url, { cache: 'no-store' });
    if (!r.ok && r.status !== 503) throw new Error(url + ': HTTP ' + r.status);
    return r.json();
  },
  tile(label, value, id, cls) {
    const E = Mosaic.el;
    return E('div', { class: 'tile' + (cls ? ' ' + cls : ''), id: id || null },
      E('div', { class: 'label' }, label), E('div', { class: 'value' }, value));
  },
  LEVELS: ['current', 'behind < 10 s', 'behind < 1 min', 'behind ≥ 1 min / not served'],
  legend() {
    const E = Mosaic.el;
    return E('div', { class: 'legend' },
      ...Mosaic.LEVELS.map((l, i) => E('span', {}, E('i', { class: 'cell lag-' + i }), l)),
      E('span', {}, E('i', { class: 'cell unreachable' }), 'searcher unreachable'),
      E('span', {}, E('i', { class: 'cell lag-0 pinned' }), 'pinned'));
  },
  behindText(c) {
    if (c.state === 'missing') return 'not held';
    if (c.state === 'not served') return 'held, not served yet';
    if (!c.level) return 'current';
    const v = c.versionsBehind === 1 ? '1 version' : (c.versionsBehind ?? '?') + ' versions';
    return c.secondsBehind == null ? v + ' behind' : `${v}, ${Mosaic.seconds(c.secondsBehind)} behind`;
  },
  cellTitle(c, nowMs, who) {
    const lines = [`${who ? who + ' · ' : ''}partition ${c.partition}`];
    if (c.version != null) lines.push('serves ' + Mosaic.versionAge(c.version, nowMs));
    lines.push('newest ' + Mosaic.versionAge(c.newestVersion, nowMs));
    lines.push(Mosaic.behindText(c) + (c.pinned ? ' · pinned' : ''));
    return lines.join('\n');
  },
  // One index's grid: datacenters side by side, in each its searchers, in each one square per
  // partition (same place in every searcher) coloured by its lag level.
  grid(index, opts) {
    const E = Mosaic.el;
    const nowMs = Date.parse(index.now);
    const n = index.partitions.length;
    const cols = n <= 16 ? Math.max(n, 1) : Math.ceil(Math.sqrt(n));
    const size = n <= 64 ? 'big' : n <= 256 ? 'mid' : 'small';
    const dcs = index.datacenters.map(dc => E('div', { class: 'dc', 'data-dc': dc.name },
      E('div', { class: 'dc-name' }, 'datacenter ' + dc.name),
      E('div', { class: 'searchers' }, ...dc.searchers.map(s => {
        const head = E('div', { class: 'searcher-head' },
          E('span', { class: 'health ' + (s.health === 'UP' ? 'up' : 'down') }, s.health || '?'), ' ',
          E('span', { class: 'addr' }, s.address + (s.self ? ' (this)' : '')));
        if (!s.cells) {
          return E('div', { class: 'searcher unreachable', 'data-address': s.address },
            head, E('div', { class: 'error' }, s.error || 'no answer'));
        }
        const behind = s.cells.filter(c => c.level > 0).length;
        const cells = E('div', { class: 'cells ' + size, style: `grid-template-columns: repeat(${cols}, auto)` },
          ...s.cells.map(c => E('div', {
            class: `cell lag-${c.level}${c.pinned ? ' pinned' : ''}${opts.selected === c.partition ? ' selected' : ''}`,
            'data-partition': c.partition, 'data-searcher': s.address, 'data-level': c.level,
            'data-state': c.state, title: Mosaic.cellTitle(c, nowMs, s.address),
            onclick: () => opts.onCell(c.partition),
          }, size === 'big' ? String(c.partition) : '')));
        return E('div', { class: 'searcher' + (behind ? ' has-lag' : ''), 'data-address': s.address },
          head,
          E('div', { class: 'muted' }, `generation ${s.generation ?? 'none'} · schema v${s.schemaVersion}` +
            ` · ${behind ? behind + ' of ' + s.cells.length + ' behind' : 'all ' + s.cells.length + ' current'}`),
          s.note ? E('div', { class: 'error' }, s.note) : null,
          cells);
      }))));
    return E('div', { class: 'index', 'data-index': index.name },
      E('h3', {}, `index ${index.name}`,
        E('span', { class: 'muted' }, ` · schema v${index.schemaVersion} · ${n} partitions · lag measured against the ${index.reference}`)),
      Mosaic.legend(),
      E('div', { class: 'dcs' }, ...dcs));
  },
  // The detail of one partition across every searcher of an index.
  detail(index, partition, onClose) {
    const E = Mosaic.el;
    const nowMs = Date.parse(index.now);
    const p = index.partitions.find(x => x.partition === partition);
    if (!p) return E('div', {});
    const rows = [];
    for (const dc of index.datacenters) for (const s of dc.searchers) {
      const c = s.cells && s.cells.find(x => x.partition === partition);
      if (!c) {
        rows.push(E('tr', { class: 'unreachable' }, E('td', {}, dc.name), E('td', {}, s.address), E('td', { colspan: 7 }, s.error || 'no answer')));
        continue;
      }
      rows.push(E('tr', { 'data-searcher': s.address },
        E('td', {}, dc.name), E('td', {}, s.address),
        E('td', {}, E('i', { class: 'cell lag-' + c.level }), ' ', Mosaic.behindText(c)),
        E('td', {}, Mosaic.versionAge(c.version, nowMs)),
        E('td', {}, (c.versions || []).map(Mosaic.version).join(', ')),
        E('td', {}, c.ageSeconds == null ? '–' : Mosaic.seconds(c.ageSeconds)),
        E('td', {}, Mosaic.bytes(c.sizeBytes)), E('td', { class: 'mono' }, c.crc32c || '–'),
        E('td', {}, c.pinned ? 'pinned' : '')));
    }
    return E('div', { class: 'detail', id: 'detail', 'data-partition': partition },
      E('button', { class: 'close', onclick: onClose, title: 'close' }, '×'),
      E('h3', {}, `index ${index.name} · partition ${partition}`),
      E('div', { class: 'muted' }, `newest version ${Mosaic.versionAge(p.newestVersion, nowMs)}` +
        (p.manifestVersion != null ? ` · manifest ${Mosaic.version(p.manifestVersion)}` : '')),
      E('table', {}, E('thead', {}, E('tr', {}, ...['DC', 'searcher', 'lag', 'serves', 'versions held', 'file age', 'size', 'CRC32C', 'pin'].map(h => E('th', {}, h)))),
        E('tbody', {}, ...rows)));
  },
  // A line chart as inline SVG over [t0, t1] (epoch ms): series = [{name, color, points: [[t, v], ...]}];
  // null values break the line.
  chart(svg, series, t0, t1, format) {
    const W = 400, H = 170, L = 56, R = 10, T = 8, B = 34;
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('width', W); svg.setAttribute('height', H);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const ns = 'http://www.w3.org/2000/svg';
    let max = 0;
    for (const s of series) for (const [, v] of s.points) if (v != null && v > max) max = v;
    max = max <= 0 ? 1 : max * 1.1;
    const x = t => L + (W - L - R) * ((t - t0) / Math.max(1, t1 - t0));
    const y = v => (H - B) - (H - B - T) * (v / max);
    const add = (tag, attrs, text) => {
      const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text != null) e.textContent = text;
      svg.appendChild(e); return e;
    };
    for (let i = 0; i <= 4; i++) {
      const v = max * i / 4;
      add('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: '#eee' });
      add('text', { x: L - 4, y: y(v) + 4, 'font-size': 10, fill: '#666', 'text-anchor': 'end' }, format(v));
    }
    const span = (t1 - t0) / 1000;
    for (let i = 0; i <= 5; i++) {
      const t = t0 + (t1 - t0) * i / 5;
      const ago = Math.round(span * (1 - i / 5));
      add('text', { x: x(t), y: H - B + 13, 'font-size': 10, fill: '#666', 'text-anchor': 'middle' },
        ago === 0 ? 'now' : ago < 60 ? `-${ago} s` : `-${Math.floor(ago / 60)}:${String(ago % 60).padStart(2, '0')}`);
    }
    let legendX = 4;
    for (const s of series) {
      let seg = [];
      const segs = [seg];
      let last = null;
      for (const [t, v] of s.points) {
        if (t < t0) continue;
        if (v == null) { if (seg.length) { seg = []; segs.push(seg); } continue; }
        seg.push(`${x(t).toFixed(1)},${y(v).toFixed(1)}`);
        last = v;
      }
      const n = segs.reduce((a, g) => a + g.length, 0);
      for (const g of segs) if (g.length) {
        add('polyline', { points: g.join(' '), fill: 'none', stroke: s.color, 'stroke-width': 1.6,
          'class': 'series', 'data-name': s.name, 'data-points': n });
      }
      add('rect', { x: legendX, y: H - 12, width: 10, height: 4, fill: s.color });
      const label = s.name + (last == null ? '' : ' ' + format(last));
      add('text', { x: legendX + 14, y: H - 7, 'font-size': 10 }, label);
      legendX += 14 + 5.4 * label.length + 10;
    }
  },
};
