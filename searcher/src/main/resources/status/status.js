'use strict';
(() => {
  const E = Mosaic.el;
  let selected = null;     // partition whose detail is open
  let renders = 0;

  function lastMinute(h, key) {
    const n = Math.max(1, Math.round(60 / h.intervalSeconds));
    const xs = h[key].slice(-n).filter(v => v != null);
    return xs;
  }

  function charts(history) {
    const h = history.indexes[0];
    const t1 = h.t.length ? h.t[h.t.length - 1] : history.now;
    const t0 = t1 - history.capacity * history.intervalSeconds * 1000;
    const pts = key => h.t.map((t, i) => [t, h[key][i]]);
    const secs = v => Mosaic.seconds(v);
    Mosaic.chart(document.getElementById('freshness'), [
      { name: 'newest file', color: '#1565c0', points: pts('newestFileAgeSeconds') },
      { name: 'generation', color: '#ef6c00', points: pts('generationAgeSeconds') },
      { name: 'max behind', color: '#c62828', points: pts('maxSecondsBehind') },
    ], t0, t1, secs);
    Mosaic.chart(document.getElementById('latency'), [
      { name: 'p50', color: '#2e7d32', points: pts('p50Ms') },
      { name: 'p99', color: '#6a1b9a', points: pts('p99Ms') },
    ], t0, t1, v => Mosaic.millis(v));
    Mosaic.chart(document.getElementById('rate'), [
      { name: 'queries/s', color: '#00838f', points: pts('queriesPerSecond') },
      { name: 'not ok/s', color: '#c62828', points: pts('notOkPerSecond') },
    ], t0, t1, v => v.toFixed(v < 10 ? 1 : 0));
    document.getElementById('history-span').textContent =
      `${h.t.length} samples, one every ${history.intervalSeconds} s, kept by the searcher`;
  }

  function render(s, health, history) {
    const nowMs = Date.parse(s.now);
    const index = s.indexes[0];
    const h = history.indexes[0];
    document.getElementById('address').textContent = s.address + ' (' + s.datacenter + ')';
    document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString() +
      ` · schema version ${s.schemaVersion} · lag measured against the ${index.reference}`;
    document.getElementById('health').replaceChildren(
      E('span', { class: 'badge ' + (health.status === 'UP' ? 'ok' : 'bad'), id: 'health-status' }, health.status),
      ...(health.checks || []).map(c => E('span', { class: 'check ' + (c.up ? 'up' : 'down') }, `${c.name}: ${c.detail || (c.up ? 'up' : 'down')}`)));

    const sum = index.summary;
    const rates = lastMinute(h, 'queriesPerSecond');
    const p99s = lastMinute(h, 'p99Ms');
    const p50s = lastMinute(h, 'p50Ms');
    const mean = xs => xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
    const median = xs => xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : null;
    document.getElementById('glance').replaceChildren(
      Mosaic.tile('partitions current', `${sum.current} / ${sum.cells}`, 'tile-current', sum.behind ? 'warn' : 'good'),
      Mosaic.tile('longest behind', sum.behind ? Mosaic.seconds(sum.maxSecondsBehind) : '–', 'tile-behind', sum.maxSecondsBehind >= index.lateSeconds ? 'bad' : ''),
      Mosaic.tile('newest file', s.newestFileAgeSeconds == null ? '–' : Mosaic.seconds(s.newestFileAgeSeconds) + ' old', 'tile-newest'),
      Mosaic.tile('queries/s (1 min)', rates.length ? mean(rates).toFixed(1) : '–', 'tile-rate'),
      Mosaic.tile('p50 (1 min)', p50s.length ? Mosaic.millis(median(p50s)) : '–', 'tile-p50'),
      Mosaic.tile('worst p99 (1 min)', p99s.length ? Mosaic.millis(Math.max(...p99s)) : '–', 'tile-p99'),
      Mosaic.tile('queries since start', s.queries.count + (s.queries.notOk ? ' (' + s.queries.notOk + ' not ok)' : ''), 'tile-queries'));

    charts(history);

    const pick = p => { selected = selected === p ? null : p; render(s, health, history); };
    document.getElementById('indexes').replaceChildren(
      ...s.indexes.map(ix => Mosaic.grid(ix, { selected, onCell: pick })));
    document.getElementById('detail-slot').replaceChildren(
      selected == null ? E('div', {}) : Mosaic.detail(index, selected, () => pick(selected)));

    document.getElementById('tiles').replaceChildren(
      Mosaic.tile('generation', s.generation == null ? 'none' : s.generation, 'tile-generation'),
      Mosaic.tile('partitions held', s.partitions.length, 'tile-partitions'),
      Mosaic.tile('generations open', s.generationsOpen),
      Mosaic.tile('partitions mapped', s.partitionsMapped),
      Mosaic.tile('mapped bytes', Mosaic.bytes(s.mappedBytes), 'tile-mapped'),
      Mosaic.tile('arenas', s.arenas),
      Mosaic.tile('reopens', s.reopens + (s.reopens ? ' (mean ' + Mosaic.seconds(s.reopenSeconds / s.reopens) + ')' : '')),
      Mosaic.tile('store files', s.storeFiles));

    const body = document.querySelector('#partitions tbody');
    body.replaceChildren(...s.partitions.map(p => {
      const behind = p.servedVersion == null || p.servedVersion !== p.version;
      return E('tr', { 'data-partition': p.partition, class: behind ? 'lagging' : '' },
        E('td', {}, p.partition), E('td', {}, Mosaic.versionAge(p.version, nowMs)),
        E('td', {}, p.servedVersion == null ? 'not served' : Mosaic.version(p.servedVersion)),
        E('td', {}, Mosaic.seconds(p.ageSeconds)), E('td', {}, Mosaic.bytes(p.sizeBytes)),
        E('td', { class: 'mono' }, p.crc32), E('td', {}, p.pinned ? 'pinned' : ''),
        E('td', {}, p.versions.map(Mosaic.version).join(', ')));
    }));
    if (++renders === 1) {
      // what the first render drew: the searcher's own history, before this page sampled anything
      document.body.setAttribute('data-first-history-samples', String(h.t.length));
    }
    document.body.setAttribute('data-renders', String(renders));
    document.body.setAttribute('data-loaded', 'true');
  }

  async function refresh() {
    try {
      const [s, h, history] = await Promise.all(
        [Mosaic.json('/status.json'), Mosaic.json('/health'), Mosaic.json('/status/history.json')]);
      render(s, h, history);
    } catch (e) {
      document.getElementById('updated').textContent = 'cannot reach the searcher: ' + e.message;
    }
  }

  refresh();
  setInterval(refresh, 2000);
})();
