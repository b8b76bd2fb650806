'use strict';
(() => {
  const E = Mosaic.el;
  const WINDOW = 300;          // seconds of freshness history kept
  const QUERY_WINDOW = 60;     // seconds over which rate and percentiles are computed
  const samples = [];          // {t, newest, generationAge, queries}
  let lastGeneration = null, generationSince = null;

  function tile(label, value, id) {
    return E('div', { class: 'tile', id: id || '' }, E('div', { class: 'label' }, label), E('div', { class: 'value' }, value));
  }

  function queryStats(now) {
    const cur = samples[samples.length - 1].queries;
    let base = samples.find(s => now - s.t <= QUERY_WINDOW) || samples[0];
    if (base === samples[samples.length - 1]) base = null;
    const dt = base ? now - base.t : 0;
    const count = base ? cur.count - base.queries.count : cur.count;
    const diff = cur.buckets.map(([le, c], i) => [le, c - (base ? (base.queries.buckets[i] || [le, 0])[1] : 0)]);
    return {
      rate: dt > 0 ? count / dt : null,
      count,
      p50: Mosaic.percentile(diff, 0.5), p95: Mosaic.percentile(diff, 0.95), p99: Mosaic.percentile(diff, 0.99),
    };
  }

  async function refresh() {
    let s, h;
    try {
      [s, h] = await Promise.all([Mosaic.json('/status.json'), Mosaic.json('/health')]);
    } catch (e) {
      document.getElementById('updated').textContent = 'cannot reach the searcher: ' + e.message;
      return;
    }
    const now = Date.now() / 1000;
    if (s.generation !== lastGeneration) { lastGeneration = s.generation; generationSince = now; }
    samples.push({ t: now, newest: s.newestFileAgeSeconds, generationAge: now - generationSince, queries: s.queries });
    while (samples.length && now - samples[0].t > WINDOW) samples.shift();

    document.getElementById('address').textContent = s.address + ' (' + s.datacenter + ')';
    document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString() + ', schema version ' + s.schemaVersion;

    const health = document.getElementById('health');
    health.replaceChildren(E('div', { class: h.status === 'UP' ? 'up' : 'down', id: 'health-status' }, h.status),
      ...(h.checks || []).map(c => E('div', { class: c.up ? 'up' : 'down' }, `${c.name}: ${c.detail || (c.up ? 'up' : 'down')}`)));

    document.getElementById('tiles').replaceChildren(
      tile('generation', s.generation == null ? 'none' : s.generation, 'tile-generation'),
      tile('partitions held', s.partitions.length, 'tile-partitions'),
      tile('generations open', s.generationsOpen),
      tile('partitions mapped', s.partitionsMapped),
      tile('mapped bytes', Mosaic.bytes(s.mappedBytes), 'tile-mapped'),
      tile('arenas', s.arenas),
      tile('reopens', s.reopens + (s.reopens ? ' (mean ' + Mosaic.seconds(s.reopenSeconds / s.reopens) + ')' : '')),
      tile('store files', s.storeFiles));

    const q = queryStats(now);
    document.getElementById('queries').replaceChildren(
      tile('queries/s', q.rate == null ? '–' : q.rate.toFixed(1), 'tile-rate'),
      tile('queries in window', q.count),
      tile('p50', Mosaic.seconds(q.p50)), tile('p95', Mosaic.seconds(q.p95)), tile('p99', Mosaic.seconds(q.p99)),
      tile('all queries', s.queries.count + (s.queries.notOk ? ' (' + s.queries.notOk + ' not ok)' : '')));

    Mosaic.chart(document.getElementById('freshness'), [
      { name: 'newest file age', color: '#1565c0', points: samples.map(x => [x.t, x.newest]) },
      { name: 'generation age', color: '#ef6c00', points: samples.map(x => [x.t, x.generationAge]) },
    ], WINDOW, 's');

    const body = document.querySelector('#partitions tbody');
    body.replaceChildren(...s.partitions.map(p => {
      const behind = p.servedVersion == null || p.servedVersion !== p.version;
      return E('tr', { 'data-partition': p.partition, class: behind ? 'lagging' : '' },
        E('td', {}, p.partition), E('td', {}, p.version),
        E('td', {}, p.servedVersion == null ? 'not served' : p.servedVersion),
        E('td', {}, Mosaic.seconds(p.ageSeconds)), E('td', {}, Mosaic.bytes(p.sizeBytes)),
        E('td', {}, p.pinned ? 'pinned' : ''), E('td', {}, p.versions.join(', ')));
    }));
    document.body.setAttribute('data-loaded', 'true');
  }

  refresh();
  setInterval(refresh, 2000);
})();
