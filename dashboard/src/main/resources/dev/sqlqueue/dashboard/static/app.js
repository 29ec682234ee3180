// sqlqueue dashboard. Everything shown is inserted with textContent (never innerHTML): payloads,
// headers, reasons and queue names cannot become markup.
(function () {
  'use strict';
  const body = document.body;
  const readOnly = body.dataset.readOnly === 'true';
  const showPayload = body.dataset.payload === 'true';
  const refreshMs = Number(body.dataset.refreshMs) || 5000;
  const csrf = document.querySelector('meta[name="sqlqueue-csrf"]').content;
  const $ = (id) => document.getElementById(id);

  let selected = null;        // queue name shown in the detail section
  let historySearch = null;   // message id searched, or null for the newest rows
  let charts = null;          // { queue, throughput, latency }
  let overview = null;        // the last overview shown
  const last = {};            // last JSON text rendered per part: unchanged data is not redrawn

  function el(tag, text, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (attrs) for (const k of Object.keys(attrs)) e.setAttribute(k, attrs[k]);
    return e;
  }

  function cell(row, col, text, cls) {
    const td = el('td', text, { 'data-col': col });
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }

  function age(ms) {
    const s = Math.floor(ms / 1000);
    if (s < 60) return s + ' s';
    const m = Math.floor(s / 60);
    if (m < 60) return m + ' m ' + String(s % 60).padStart(2, '0') + ' s';
    return Math.floor(m / 60) + ' h ' + String(m % 60).padStart(2, '0') + ' m';
  }

  function time(iso) {
    return iso ? iso.replace('T', ' ').replace('Z', '') : '-';
  }

  function status(text) {
    $('status').textContent = text;
  }

  async function getJson(path) {
    const r = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
    if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
    return r;
  }

  async function part(name, path, render) {
    const r = await getJson(path);
    const text = await r.text();
    if (last[name] === text) return;
    last[name] = text;
    render(JSON.parse(text));
  }

  // rows are kept while the list of queues stays the same (only their cells change), so a row does not
  // flicker or lose a click at every refresh
  function renderQueues(data) {
    const tbody = $('queues').querySelector('tbody');
    $('no-queues').hidden = data.queues.length > 0;
    const names = data.queues.map((q) => q.name);
    const rows = Array.from(tbody.children);
    const same = rows.length === names.length && rows.every((tr, i) => tr.getAttribute('data-queue') === names[i]);
    if (!same) {
      tbody.replaceChildren();
      for (const name of names) {
        const tr = el('tr', null, { 'data-queue': name });
        for (const col of ['name', 'state', 'ready', 'delayed', 'inFlight', 'dead', 'oldest', 'processed']) {
          cell(tr, col, null, col === 'name' || col === 'state' ? null : 'num');
        }
        tr.addEventListener('click', () => select(name));
        tbody.appendChild(tr);
      }
    }
    data.queues.forEach((q, i) => {
      const tr = tbody.children[i];
      const set = (col, v) => { tr.querySelector('td[data-col="' + col + '"]').textContent = String(v); };
      set('name', q.name);
      set('state', q.paused === undefined ? '-' : (q.paused ? 'paused' : 'running'));
      tr.classList.toggle('paused', q.paused === true);
      set('ready', q.ready);
      set('delayed', q.delayed);
      set('inFlight', q.inFlight);
      set('dead', q.dead);
      set('oldest', q.ready > 0 ? age(q.oldestReadyAgeMillis) : '-');
      tr.querySelector('td[data-col="oldest"]').setAttribute('data-ms', String(q.oldestReadyAgeMillis));
      set('processed', q.processed);
      tr.classList.toggle('selected', q.name === selected);
    });
    overview = data;
    renderPause();
    if (selected && !names.includes(selected)) select(null);
  }

  // the pause bar of the selected queue, or the capability notice where the backend cannot pause
  function renderPause() {
    if (!overview || !selected) return;
    const q = overview.queues.find((x) => x.name === selected);
    const notice = $('pause-notice');
    if (!overview.pause) {
      notice.hidden = false;
      notice.textContent = 'Pause and resume are not available on this backend: ' + overview.pauseAbsent;
      $('pause-bar').hidden = true;
      $('pause-state').textContent = '';
      return;
    }
    notice.hidden = true;
    const paused = !!(q && q.paused);
    $('pause-state').textContent = paused ? 'paused' : 'running';
    $('pause-state').className = 'state ' + (paused ? 'state-paused' : 'state-running');
    $('pause-bar').hidden = readOnly;
    $('pause').hidden = paused;
    $('resume').hidden = !paused;
  }

  function chartOpts(title, series, width) {
    return {
      width: width, height: 200,
      scales: { x: { time: true } },
      series: [{}].concat(series),
      axes: [{}, { size: 60 }],
      legend: { live: false },
    };
  }

  function ensureCharts() {
    if (charts && charts.queue === selected) return charts;
    $('chart-throughput').replaceChildren();
    $('chart-latency').replaceChildren();
    const w = Math.max(320, Math.min(640, Math.floor((document.body.clientWidth - 80) / 2)));
    charts = {
      queue: selected,
      throughput: new uPlot(chartOpts('throughput', [
        { label: 'acked/s', stroke: '#1e7b34', fill: 'rgba(30,123,52,.12)' },
        { label: 'dead-lettered/s', stroke: '#c0392b' }], w), [[], [], []], $('chart-throughput')),
      latency: new uPlot(chartOpts('latency', [
        { label: 'p50 ms', stroke: '#2f6fde', spanGaps: false, points: { show: true, size: 5 } },
        { label: 'p95 ms', stroke: '#8e44ad', spanGaps: false, points: { show: true, size: 5 } }], w), [[], [], []], $('chart-latency')),
    };
    return charts;
  }

  function renderSeries(s) {
    const c = ensureCharts();
    if (!s.sampled) {
      $('chart-note').textContent = 'Waiting for the first sample.';
      return;
    }
    c.throughput.setData([s.t, s.acked, s.dead]);
    c.latency.setData([s.t, s.p50, s.p95]);
    $('chart-note').textContent = s.processedLastHour > 0
      ? s.processedLastHour + ' messages processed in the last hour.'
      : 'Nothing processed in the last hour (the charts read the history, kept when history is on).';
    $('chart-note').setAttribute('data-processed-last-hour', String(s.processedLastHour));
  }

  function renderDead(data) {
    const tbody = $('dead').querySelector('tbody');
    tbody.replaceChildren();
    $('no-dead').hidden = data.deadLetters.length > 0;
    $('dead-count').textContent = '(' + data.deadLetters.length + (data.deadLetters.length >= data.limit ? '+' : '') + ')';
    $('dead-actions').hidden = readOnly || data.deadLetters.length === 0;
    for (const d of data.deadLetters) {
      const tr = el('tr', null, { 'data-id': String(d.id) });
      cell(tr, 'id', d.id, 'num');
      cell(tr, 'attempts', d.attempts, 'num');
      cell(tr, 'reason', d.reason, 'reason');
      const h = cell(tr, 'headers', null);
      const ul = el('ul', null, { class: 'headers' });
      for (const k of Object.keys(d.headers)) ul.appendChild(el('li', k + ': ' + d.headers[k]));
      if (d.rawHeaders) ul.appendChild(el('li', 'undecodable: ' + d.rawHeaders));
      h.appendChild(ul);
      const p = cell(tr, 'payload', null);
      if (d.payload) {
        p.appendChild(el('span', d.payload.kind + ', ' + d.payload.bytes + ' bytes' + (d.payload.truncated ? ', truncated' : ''), { class: 'kind' }));
        p.appendChild(el('pre', d.payload.preview, { class: 'payload', 'data-kind': d.payload.kind }));
      } else {
        p.appendChild(el('span', (d.payloadBytes || 0) + ' bytes (previews are off)', { class: 'kind' }));
      }
      cell(tr, 'deadAt', time(d.deadAt));
      const a = cell(tr, 'action', null, 'action-col');
      if (!readOnly) {
        const b = el('button', 'Requeue', { type: 'button', class: 'requeue' });
        b.addEventListener('click', () => act('Requeue message ' + d.id + ' of queue "' + data.queue + '"?',
          'api/requeue', { queue: data.queue, id: String(d.id) }));
        a.appendChild(b);
        const del = el('button', 'Delete', { type: 'button', class: 'delete danger' });
        del.addEventListener('click', () => act('Delete dead letter ' + d.id + ' of queue "' + data.queue + '" for good?',
          'api/delete-dead', { queue: data.queue, id: String(d.id) }));
        a.appendChild(del);
      }
      tbody.appendChild(tr);
    }
  }

  function renderHistory(data) {
    const tbody = $('history').querySelector('tbody');
    tbody.replaceChildren();
    $('history-note').textContent = data.search
      ? (data.history.length ? '' : 'No processed message with this id among the newest ' + data.searchedRows + ' rows.')
      : (data.history.length ? 'Newest ' + data.history.length + ' rows.' : 'No processed messages (history is kept when history is on).');
    for (const h of data.history) {
      const tr = el('tr', null, { 'data-id': String(h.id) });
      cell(tr, 'id', h.id, 'num');
      cell(tr, 'start', time(h.startedAt));
      cell(tr, 'end', time(h.finishedAt));
      cell(tr, 'duration', h.durationMillis, 'num');
      cell(tr, 'attempts', h.attempts, 'num');
      cell(tr, 'outcome', h.outcome, 'outcome-' + h.outcome);
      cell(tr, 'detail', h.detail);
      tbody.appendChild(tr);
    }
  }

  function select(name) {
    selected = name;
    historySearch = null;
    $('history-id').value = '';
    delete last.series; delete last.dead; delete last.history;
    for (const tr of $('queues').querySelectorAll('tbody tr')) {
      tr.classList.toggle('selected', tr.getAttribute('data-queue') === name);
    }
    $('queue-detail').hidden = !name;
    $('detail-name').textContent = name || '';
    renderPause();
    if (name) {
      history.replaceState(null, '', '#queue=' + encodeURIComponent(name));
      refresh();
    } else {
      history.replaceState(null, '', '#');
    }
  }

  let running = false;
  async function refresh() {
    if (running || $('confirm').open) return;
    running = true;
    try {
      await part('overview', 'api/overview', renderQueues);
      if (selected) {
        const q = encodeURIComponent(selected);
        await part('series', 'api/series?queue=' + q, renderSeries);
        await part('dead', 'api/dead?queue=' + q, renderDead);
        await part('history', 'api/history?queue=' + q + (historySearch ? '&id=' + encodeURIComponent(historySearch) : ''), renderHistory);
      }
      status('updated ' + new Date().toLocaleTimeString());
    } catch (e) {
      status('refresh failed: ' + e.message);
    } finally {
      running = false;
      body.dataset.refreshes = String(Number(body.dataset.refreshes) + 1);
    }
  }

  function confirmDialog(text) {
    return new Promise((resolve) => {
      const d = $('confirm');
      $('confirm-text').textContent = text;
      d.returnValue = '';
      d.addEventListener('close', () => resolve(d.returnValue === 'ok'), { once: true });
      d.showModal();
    });
  }

  async function act(question, path, params) {
    if (readOnly) return;
    if (!(await confirmDialog(question))) return;
    try {
      const r = await fetch(path, {
        method: 'POST', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-CSRF-Token': csrf },
        body: new URLSearchParams(params).toString(),
      });
      const data = await r.json();
      status(r.ok ? data.message : 'refused: ' + data.error);
    } catch (e) {
      status('failed: ' + e.message);
    }
    delete last.dead; delete last.overview;
    refresh();
  }

  $('mode').textContent = (readOnly ? 'read-only' : '') + (showPayload ? '' : (readOnly ? ', ' : '') + 'payload previews off');
  $('requeue-all').addEventListener('click', () => act('Requeue every dead letter of queue "' + selected + '"?',
    'api/requeue-all', { queue: selected }));
  $('purge-dead').addEventListener('click', () => act('Delete every dead letter of queue "' + selected + '" for good?',
    'api/purge-dead', { queue: selected }));
  $('pause').addEventListener('click', () => act('Pause queue "' + selected + '"? No worker claims its messages until it is resumed.',
    'api/pause', { queue: selected }));
  $('resume').addEventListener('click', () => act('Resume queue "' + selected + '"?', 'api/resume', { queue: selected }));
  $('history-search').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const v = $('history-id').value.trim();
    historySearch = v === '' ? null : v;
    delete last.history;
    refresh();
  });
  $('history-clear').addEventListener('click', () => {
    historySearch = null;
    $('history-id').value = '';
    delete last.history;
    refresh();
  });
  if (readOnly) { $('dead-actions').hidden = true; $('pause-bar').hidden = true; }

  const m = /^#queue=(.+)$/.exec(location.hash);
  if (m) select(decodeURIComponent(m[1]));
  refresh();
  setInterval(refresh, refreshMs);
})();
