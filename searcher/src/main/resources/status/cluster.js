'use strict';
(() => {
  const E = Mosaic.el;
  let selected = null;     // {index, partition} whose detail is open
  let last = null;

  function render(c) {
    last = c;
    const searchers = c.datacenters.flatMap(d => d.searchers);
    const up = searchers.filter(s => s.health === 'UP').length;
    let cells = 0, current = 0, behind = 0, unreachable = 0, maxBehind = 0;
    for (const ix of c.indexes) {
      cells += ix.summary.cells; current += ix.summary.current; behind += ix.summary.behind;
      unreachable = Math.max(unreachable, ix.summary.unreachable);
      maxBehind = Math.max(maxBehind, ix.summary.maxSecondsBehind);
    }
    document.getElementById('summary').replaceChildren(
      Mosaic.tile('searchers up', `${up} / ${searchers.length}`, 'tile-up', up === searchers.length ? 'good' : 'bad'),
      Mosaic.tile('datacenters', c.datacenters.length, 'tile-dcs'),
      Mosaic.tile('indexes', c.indexes.length, 'tile-indexes'),
      Mosaic.tile('partition copies current', `${current} / ${cells}`, 'tile-current', behind ? 'warn' : 'good'),
      Mosaic.tile('longest behind', behind ? Mosaic.seconds(maxBehind) : '–', 'tile-behind', maxBehind >= 60 ? 'bad' : ''),
      Mosaic.tile('unreachable', unreachable, 'tile-unreachable', unreachable ? 'bad' : ''));

    const pick = (index, p) => {
      selected = selected && selected.index === index && selected.partition === p ? null : { index, partition: p };
      render(last);
    };
    document.getElementById('indexes').replaceChildren(...c.indexes.map(ix =>
      Mosaic.grid(ix, { selected: selected && selected.index === ix.name ? selected.partition : null, onCell: p => pick(ix.name, p) })));
    const open = selected && c.indexes.find(ix => ix.name === selected.index);
    document.getElementById('detail-slot').replaceChildren(open
      ? Mosaic.detail(open, selected.partition, () => pick(selected.index, selected.partition)) : E('div', {}));

    const worst = c.indexes.flatMap(ix => ix.summary.worst.map(w => ({ ix, w })));
    document.getElementById('worst').replaceChildren(worst.length
      ? E('table', { id: 'lagging-list' },
        E('thead', {}, E('tr', {}, ...['', 'index', 'DC', 'searcher', 'partition', 'serves', 'newest', 'behind'].map(h => E('th', {}, h)))),
        E('tbody', {}, ...worst.map(({ ix, w }) => {
          const nowMs = Date.parse(ix.now);
          return E('tr', { class: 'lagging', 'data-searcher': w.address, 'data-partition': w.partition, onclick: () => pick(ix.name, w.partition) },
            E('td', {}, E('i', { class: 'cell lag-' + w.level })), E('td', {}, ix.name), E('td', {}, w.datacenter),
            E('td', {}, w.address), E('td', {}, w.partition),
            E('td', {}, w.version == null ? w.state : Mosaic.versionAge(w.version, nowMs)),
            E('td', {}, Mosaic.versionAge(w.newestVersion, nowMs)), E('td', {}, Mosaic.behindText(w)));
        })))
      : E('div', { class: 'badge ok', id: 'lagging-list' }, 'every searcher serves the newest version of every partition'));
    document.getElementById('updated').textContent = `updated ${new Date().toLocaleTimeString()}: ` +
      `${c.datacenters.length} datacenters, ${searchers.length} searchers, asked by ${c.self}` +
      (c.manifest ? ', lag against the manifest' : ', lag against the newest version held');
    document.body.setAttribute('data-loaded', 'true');
  }

  async function refresh() {
    try {
      render(await Mosaic.json('/cluster.json'));
    } catch (e) {
      document.getElementById('updated').textContent = 'cannot load the cluster view: ' + e.message;
    }
  }

  refresh();
  setInterval(refresh, 3000);
})();
