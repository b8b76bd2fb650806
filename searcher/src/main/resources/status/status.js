'use strict';
(() => {
  const E = Mosaic.el;
  let selected = null;     // partition whose detail is open
  let shown = null;        // the index shown (its tab selected); also in the address as #index=<name>
  let renders = 0;
  let last = null;

  function lastMinute(h, key) {
    const n = Math.max(1, Math.round(60 / h.intervalSeconds));
    return h[key].slice(-n).filter(v => v != null);
  }
  const mean = xs => xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  const median = xs => xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : null;

  function indexFromAddress() {
    const m = /(?:^#|&)index=([^&]+)/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : null;
  }

  function charts(history, h) {
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

  // One tab per index: its name, how many partitions are current, queries/s over the last minute.
  function tabs(s, hist) {
    document.getElementById('index-tabs').replaceChildren(...s.indexes.map(ix => {
      const h = { ...hist.indexes.find(x => x.name === ix.name), intervalSeconds: hist.intervalSeconds };
      const rates = h.t ? lastMinute(h, 'queriesPerSecond') : [];
      const sum = ix.summary;
      const cls = !ix.node.ready || sum.maxSecondsBehind >= ix.lateSeconds ? 'bad' : sum.behind ? 'warn' : 'good';
      return E('button', {
        class: `index-tab ${cls}${ix.name === shown ? ' selected' : ''}`, role: 'tab',
        'aria-selected': String(ix.name === shown), 'data-index': ix.name,
        onclick: () => { shown = ix.name; selected = null; window.history.replaceState(null, '', '#index=' + encodeURIComponent(shown)); render(...last); },
      }, E('span', { class: 'tab-name' }, ix.name),
      E('span', { class: 'muted' }, `${sum.current} / ${sum.cells} current · ` +
        (rates.length ? mean(rates).toFixed(1) : '–') + ' q/s' + (ix.node.ready ? '' : ' · not serving')));
    }));
  }

  function render(s, health, hist) {
    last = [s, health, hist];
    const names = s.indexes.map(ix => ix.name);
    if (!names.includes(shown)) shown = names.includes(indexFromAddress()) ? indexFromAddress() : names[0];
    const index = s.indexes.find(ix => ix.name === shown);
    const node = index.node;
    const h = { ...hist.indexes.find(x => x.name === shown), intervalSeconds: hist.intervalSeconds };
    const nowMs = Date.parse(s.now);
    document.getElementById('address').textContent = s.address + ' (' + s.datacenter + ')';
    document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString() +
      ` · ${names.length === 1 ? 'index' : names.length + ' indexes, showing'} ${shown}` +
      ` · schema version ${node.schemaVersion} · lag measured against the ${index.reference}`;
    document.getElementById('health').replaceChildren(
      E('span', { class: 'badge ' + (health.status === 'UP' ? 'ok' : 'bad'), id: 'health-status' }, health.status),
      ...(health.checks || []).map(c => E('span', { class: 'check ' + (c.up ? 'up' : 'down') }, `${c.name}: ${c.detail || (c.up ? 'up' : 'down')}`)));
    tabs(s, hist);
    for (const e of document.querySelectorAll('.index-name')) e.textContent = shown;

    const sum = index.summary;
    const rates = lastMinute(h, 'queriesPerSecond');
    const p99s = lastMinute(h, 'p99Ms');
    const p50s = lastMinute(h, 'p50Ms');
    document.getElementById('glance').replaceChildren(
      Mosaic.tile('partitions current', `${sum.current} / ${sum.cells}`, 'tile-current', sum.behind ? 'warn' : 'good'),
      Mosaic.tile('longest behind', sum.behind ? Mosaic.seconds(sum.maxSecondsBehind) : '–', 'tile-behind', sum.maxSecondsBehind >= index.lateSeconds ? 'bad' : ''),
      Mosaic.tile('newest file', node.newestFileAgeSeconds == null ? '–' : Mosaic.seconds(node.newestFileAgeSeconds) + ' old', 'tile-newest'),
      Mosaic.tile('queries/s (1 min)', rates.length ? mean(rates).toFixed(1) : '–', 'tile-rate'),
      Mosaic.tile('p50 (1 min)', p50s.length ? Mosaic.millis(median(p50s)) : '–', 'tile-p50'),
      Mosaic.tile('worst p99 (1 min)', p99s.length ? Mosaic.millis(Math.max(...p99s)) : '–', 'tile-p99'),
      Mosaic.tile('queries since start', node.queries.count + (node.queries.notOk ? ' (' + node.queries.notOk + ' not ok)' : ''), 'tile-queries'));

    charts(hist, h);

    const pick = p => { selected = selected === p ? null : p; render(...last); };
    document.getElementById('indexes').replaceChildren(Mosaic.grid(index, { selected, onCell: pick }));
    document.getElementById('detail-slot').replaceChildren(
      selected == null ? E('div', {}) : Mosaic.detail(index, selected, () => pick(selected)));

    document.getElementById('tiles').replaceChildren(
      Mosaic.tile('generation', node.generation == null ? 'none' : node.generation, 'tile-generation'),
      Mosaic.tile('partitions held', node.partitionsHeld, 'tile-partitions'),
      Mosaic.tile('generations open', node.generationsOpen),
      Mosaic.tile('partitions mapped', node.partitionsMapped),
      Mosaic.tile('mapped bytes', Mosaic.bytes(node.mappedBytes), 'tile-mapped'),
      Mosaic.tile('arenas', node.arenas),
      Mosaic.tile('reopens', node.reopens + (node.reopens ? ' (mean ' + Mosaic.seconds(node.reopenSeconds / node.reopens) + ')' : '')),
      Mosaic.tile('store files', node.storeFiles));

    // the table lists this searcher's cells of the grid that it holds a file for
    const mine = index.datacenters.flatMap(d => d.searchers).find(x => x.self);
    const held = ((mine && mine.cells) || []).filter(c => c.heldVersion != null);
    document.querySelector('#partitions tbody').replaceChildren(...held.map(c => {
      const behind = c.servedVersion == null || c.servedVersion !== c.heldVersion;
      return E('tr', { 'data-partition': c.partition, class: behind ? 'lagging' : '' },
        E('td', {}, c.partition), E('td', {}, Mosaic.versionAge(c.heldVersion, nowMs)),
        E('td', {}, c.servedVersion == null ? 'not served' : Mosaic.version(c.servedVersion)),
        E('td', {}, Mosaic.seconds(c.ageSeconds)), E('td', {}, Mosaic.bytes(c.sizeBytes)),
        E('td', { class: 'mono' }, c.crc32c), E('td', {}, c.pinned ? 'pinned' : ''),
        E('td', {}, (c.versions || []).map(Mosaic.version).join(', ')));
    }));
    if (++renders === 1) {
      // what the first render drew: the searcher's own history, before this page sampled anything
      document.body.setAttribute('data-first-history-samples', String(h.t.length));
    }
    document.body.setAttribute('data-index', shown);
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
