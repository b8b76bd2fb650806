'use strict';
(() => {
  const E = Mosaic.el;

  function render(c) {
    // newest version of every partition held anywhere, per schema version
    const newest = new Map();
    const all = [];
    for (const dc of c.datacenters) for (const s of dc.searchers) {
      all.push(s);
      if (!s.partitions) continue;
      for (const p of s.partitions.partitions) {
        const k = s.partitions.schemaVersion + '/' + p.partition;
        newest.set(k, Math.max(newest.get(k) ?? -1, p.version));
      }
    }
    const partitionsOf = sv => [...newest.keys()].filter(k => k.startsWith(sv + '/'))
      .map(k => Number(k.split('/')[1])).sort((a, b) => a - b);
    const lagging = [];
    const dcs = c.datacenters.map(dc => E('div', { class: 'dc', 'data-dc': dc.name },
      E('h2', {}, 'datacenter ' + dc.name),
      E('div', { class: 'searchers' }, ...dc.searchers.map(s => {
        const box = E('div', { class: 'searcher', 'data-address': s.address },
          E('h3', {}, s.address + (s.self ? ' (this)' : ' '), ' ',
            E('span', { class: s.health === 'UP' ? 'up' : 'down' }, s.health || '?')));
        if (!s.partitions) {
          box.classList.add('unreachable');
          box.append(E('div', {}, s.error || 'no answer'));
          return box;
        }
        const sv = s.partitions.schemaVersion;
        const held = new Map(s.partitions.partitions.map(p => [p.partition, p]));
        const rows = partitionsOf(sv).map(pid => {
          const p = held.get(pid);
          const max = newest.get(sv + '/' + pid);
          if (!p) {
            lagging.push(`${s.address} misses partition ${pid} (newest v${max})`);
            return E('tr', { class: 'missing lagging', 'data-partition': pid, 'data-lagging': 'true' },
              E('td', {}, pid), E('td', {}, 'missing'), E('td', {}, ''));
          }
          const behind = p.version < max;
          if (behind) lagging.push(`${s.address} partition ${pid}: v${p.version} < v${max}`);
          return E('tr', { class: behind ? 'lagging' : '', 'data-partition': pid, 'data-lagging': String(behind) },
            E('td', {}, pid), E('td', {}, p.version + (p.pinned ? ' (pinned)' : '')), E('td', {}, Mosaic.seconds(p.ageSeconds)));
        });
        box.append(E('div', { class: 'muted' }, `schema v${sv}, generation ${s.partitions.generation ?? 'none'}, ${held.size} partitions`),
          E('table', {}, E('thead', {}, E('tr', {}, E('th', {}, 'partition'), E('th', {}, 'version'), E('th', {}, 'age'))),
            E('tbody', {}, ...rows)));
        return box;
      }))));
    document.getElementById('dcs').replaceChildren(...dcs);
    document.getElementById('summary').replaceChildren(lagging.length
      ? E('ul', { id: 'lagging-list' }, ...lagging.map(l => E('li', { class: 'lagging' }, l)))
      : E('div', { class: 'up', id: 'lagging-list' }, 'every searcher holds the newest version of every partition'));
    document.getElementById('updated').textContent = `updated ${new Date().toLocaleTimeString()}: ` +
      `${c.datacenters.length} datacenters, ${all.length} searchers, asked by ${c.self}`;
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
