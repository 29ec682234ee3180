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
  let range = '1h';           // the charts' range: 1h (sampled here), 24h or 7d (counted by the history table)
  let openMessage = null;     // id of the message whose page is shown, or null
  let messagesAfter = 0;      // the first page (0) or the id the shown page starts after
  const messagesPages = [];   // the "after" of the pages before, to go back to the first
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

  // one time zone for every time on the page, the viewer's choice (kept in this browser): UTC or the browser's own
  const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local';
  let tz = localStorage.getItem('sqlqueue.tz') === 'local' ? 'local' : 'UTC';
  const pad = (n, w) => String(n).padStart(w || 2, '0');

  function time(iso) {
    if (!iso) return '-';
    if (tz === 'UTC') return iso.replace('T', ' ').replace('Z', '');
    const d = new Date(iso);
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + pad(d.getHours()) + ':'
      + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3);
  }

  function showZone() {
    $('tz').value = tz;
    body.dataset.tz = tz;
    for (const s of document.querySelectorAll('.tz')) s.textContent = '(' + (tz === 'UTC' ? 'UTC' : localZone) + ')';
  }

  function status(text) {
    $('status').textContent = text;
  }

  async function getJson(path) {
    const r = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
    if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
    return r;
  }

  // answered: an error of the server (a missing capability, a message not found) is rendered, not thrown
  async function part(name, path, render, answered) {
    let r;
    if (answered) {
      r = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
      if (!r.ok && r.status !== 404 && r.status !== 409) throw new Error(path + ': HTTP ' + r.status);
    } else {
      r = await getJson(path);
    }
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
      // the axis in the page's time zone (uPlot draws local time unless told)
      tzDate: (ts) => (tz === 'UTC' ? uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC') : new Date(ts * 1e3)),
      scales: { x: { time: true } },
      series: [{}].concat(series),
      axes: [{}, { size: 60 }],
      legend: { live: false },
    };
  }

  function ensureCharts() {
    if (charts && charts.queue === selected && charts.range === range) return charts;
    const long = range !== '1h';
    const span = { '1h': 'last hour', '24h': 'last 24 hours', '7d': 'last 7 days' }[range];
    const bucket = { '1h': '10 s', '24h': '5 min', '7d': '1 h' }[range];
    $('caption-throughput').textContent = 'Throughput, messages/s (' + bucket + ' buckets, ' + span + ')';
    $('caption-latency').textContent = 'Enqueue-to-ack latency, ms (' + (long ? 'mean per bucket, ' : '') + span + ')';
    $('chart-throughput').replaceChildren();
    $('chart-latency').replaceChildren();
    const w = Math.max(320, Math.min(640, Math.floor((document.body.clientWidth - 80) / 2)));
    charts = {
      queue: selected,
      range: range,
      throughput: new uPlot(chartOpts('throughput', [
        { label: 'acked/s', stroke: '#1e7b34', fill: 'rgba(30,123,52,.12)' },
        { label: 'dead-lettered/s', stroke: '#c0392b' }], w), [[], [], []], $('chart-throughput')),
      latency: long
        ? new uPlot(chartOpts('latency', [
          { label: 'mean ms', stroke: '#2f6fde', spanGaps: false, points: { show: true, size: 5 } }], w), [[], []], $('chart-latency'))
        : new uPlot(chartOpts('latency', [
          { label: 'p50 ms', stroke: '#2f6fde', spanGaps: false, points: { show: true, size: 5 } },
          { label: 'p95 ms', stroke: '#8e44ad', spanGaps: false, points: { show: true, size: 5 } }], w), [[], [], []], $('chart-latency')),
    };
    return charts;
  }

  function renderSeries(s) {
    const c = ensureCharts();
    if (!s.sampled) {
      $('chart-note').textContent = s.unavailable ? 'This range is not available: ' + s.unavailable : 'Waiting for the first sample.';
      return;
    }
    c.throughput.setData([s.t, s.acked, s.dead]);
    if (s.range) {
      c.latency.setData([s.t, s.mean]);
      const span = s.range === '24h' ? 'the last 24 hours' : 'the last 7 days';
      $('chart-note').textContent = s.processed > 0 ? s.processed + ' messages processed in ' + span + ' (counted by the history table).'
        : 'Nothing processed in ' + span + ' (the charts read the history, kept when history is on).';
      $('chart-note').setAttribute('data-processed-range', String(s.processed));
      $('chart-note').setAttribute('data-range', s.range);
      return;
    }
    c.latency.setData([s.t, s.p50, s.p95]);
    $('chart-note').textContent = s.processedLastHour > 0
      ? s.processedLastHour + ' messages processed in the last hour.'
      : 'Nothing processed in the last hour (the charts read the history, kept when history is on).';
    $('chart-note').setAttribute('data-processed-last-hour', String(s.processedLastHour));
    $('chart-note').setAttribute('data-range', '1h');
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

  function fmtLeft(ms) {
    return ms > 0 ? age(ms) : '-';
  }

  function payloadInto(container, p, bytes) {
    if (p) {
      container.appendChild(el('span', p.kind + ', ' + p.bytes + ' bytes' + (p.truncated ? ', truncated' : ''), { class: 'kind' }));
      container.appendChild(el('pre', p.preview, { class: 'payload', 'data-kind': p.kind }));
    } else {
      container.appendChild(el('span', (bytes || 0) + ' bytes (previews are off)', { class: 'kind' }));
    }
  }

  // the same data but for the clock: only the lease left changes, in place (rows are not rebuilt every refresh)
  const steady = (data) => JSON.stringify(data, (k, v) => (k === 'readAt' || k === 'millisLeft' ? undefined : v));

  function renderMessages(data) {
    const tbody = $('messages').querySelector('tbody');
    const sig = steady(data);
    if (sig === last.messagesSteady && !data.error) {
      for (const m of data.messages) {
        const td = tbody.querySelector('tr[data-id="' + m.id + '"] td[data-col="left"]');
        if (td && m.state === 'in-flight') {
          td.textContent = fmtLeft(m.millisLeft);
          td.setAttribute('data-ms', String(m.millisLeft));
        }
      }
      return;
    }
    last.messagesSteady = sig;
    tbody.replaceChildren();
    if (data.error) {
      $('messages-note').textContent = 'Listing messages is not available on this backend: ' + data.error;
      $('messages-filter').setAttribute('data-absent', 'true');
      return;
    }
    $('messages-note').textContent = data.messages.length === 0 ? 'No ' + data.state.replace('-', ' ') + ' messages'
      + (data.after ? ' after id ' + data.after : '') + '.' : data.messages.length + ' ' + data.state.replace('-', ' ')
      + ' message(s)' + (data.after ? ' after id ' + data.after : '') + (data.next !== null ? '; more on the next page.' : '.');
    $('messages-next').disabled = data.next === null;
    $('messages-next').dataset.next = data.next === null ? '' : String(data.next);
    $('messages-first').disabled = !data.after;
    for (const m of data.messages) {
      const tr = el('tr', null, { 'data-id': String(m.id), 'data-state': m.state });
      const idCell = cell(tr, 'id', null, 'num');
      const link = el('a', m.id, { href: '#queue=' + encodeURIComponent(data.queue) + '&message=' + m.id, class: 'message-link' });
      idCell.appendChild(link);
      cell(tr, 'attempts', m.attempts, 'num');
      cell(tr, 'priority', m.priority, 'num');
      cell(tr, 'enqueued', time(m.enqueuedAt));
      cell(tr, 'visible', time(m.visibleAt));
      const left = cell(tr, 'left', m.state === 'in-flight' ? fmtLeft(m.millisLeft) : '-', 'num');
      left.setAttribute('data-ms', String(m.millisLeft));
      cell(tr, 'lease', m.leaseToken === null ? '-' : m.leaseToken + (m.claimedAt ? ' since ' + time(m.claimedAt) : ''));
      payloadInto(cell(tr, 'payload', null), m.payload, m.payloadBytes);
      tbody.appendChild(tr);
    }
  }

  function renderMessage(data) {
    const sig = steady(data);
    if (sig === last.messageSteady && data.message) {
      const td = $('message-fields').querySelector('tr[data-field="lease left"] td');
      if (td) td.textContent = fmtLeft(data.message.millisLeft);
      return;
    }
    last.messageSteady = sig;
    $('message-id').textContent = String(data.id);
    $('message-queue').textContent = data.queue;
    $('message-where').textContent = data.error ? 'not found' : data.where === 'queue' ? data.message.state.replace('-', ' ')
      : data.where === 'dead' ? 'dead letter' : 'processed';
    const fields = $('message-fields').querySelector('tbody');
    fields.replaceChildren();
    const headers = $('message-headers');
    headers.replaceChildren();
    $('message-payload').textContent = '';
    $('message-payload-kind').textContent = '';
    const tbody = $('message-history').querySelector('tbody');
    tbody.replaceChildren();
    if (data.error) {
      $('message-note').textContent = data.error;
      return;
    }
    const m = data.message || data.dead;
    $('message-note').textContent = data.where === 'history' ? 'No longer on the queue nor among its dead letters: its history rows follow.' : '';
    const field = (name, value) => {
      const tr = el('tr', null, { 'data-field': name });
      tr.appendChild(el('th', name));
      tr.appendChild(el('td', value));
      fields.appendChild(tr);
    };
    if (m) {
      field('attempts', m.attempts);
      field('enqueued', time(m.enqueuedAt));
      if (data.message) {
        field('state', m.state.replace('-', ' '));
        field('priority', m.priority);
        field(m.state === 'in-flight' ? 'lease ends' : 'visible at', time(m.visibleAt));
        if (m.state === 'in-flight') field('lease left', fmtLeft(m.millisLeft));
        field('lease token (holder)', m.leaseToken === null ? '-' : m.leaseToken);
        if (m.claimedAt) field('claimed at', time(m.claimedAt));
        if (m.lastError) field('last error', m.lastError);
      } else {
        field('dead since', time(m.deadAt));
        field('reason', m.reason);
      }
      if (m.group) field('group', m.group);
      for (const k of Object.keys(m.headers)) headers.appendChild(el('li', k + ': ' + m.headers[k]));
      if (m.rawHeaders) headers.appendChild(el('li', 'undecodable: ' + m.rawHeaders));
      if (!headers.children.length) headers.appendChild(el('li', 'none', { class: 'note' }));
      if (m.payload) {
        $('message-payload-kind').textContent = m.payload.kind + ', ' + m.payload.bytes + ' bytes'
          + (m.payload.truncated ? ', truncated (a preview of the first bytes only)' : '');
        $('message-payload').textContent = m.payload.preview;
        $('message-payload').setAttribute('data-kind', m.payload.kind);
      } else {
        $('message-payload-kind').textContent = (m.payloadBytes || 0) + ' bytes (previews are off)';
      }
    }
    $('message-no-history').hidden = data.history.length > 0;
    for (const h of data.history) {
      const tr = el('tr');
      cell(tr, 'start', time(h.startedAt));
      cell(tr, 'end', time(h.finishedAt));
      cell(tr, 'duration', h.durationMillis, 'num');
      cell(tr, 'attempts', h.attempts, 'num');
      cell(tr, 'outcome', h.outcome, 'outcome-' + h.outcome);
      cell(tr, 'detail', h.detail);
      tbody.appendChild(tr);
    }
  }

  function showMessage(id) {
    openMessage = id;
    delete last.message;
    delete last.messageSteady;
    $('message-detail').hidden = id === null;
    $('queue-detail').hidden = id !== null || !selected;
    if (id !== null) {
      history.replaceState(null, '', '#queue=' + encodeURIComponent(selected) + '&message=' + id);
      refresh();
    } else if (selected) {
      history.replaceState(null, '', '#queue=' + encodeURIComponent(selected));
    }
  }

  function select(name) {
    selected = name;
    openMessage = null;
    $('message-detail').hidden = true;
    messagesAfter = 0;
    messagesPages.length = 0;
    delete last.messages;
    delete last.messagesSteady;
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
  let again = false;          // a refresh asked for while one ran: run once more right after it
  async function refresh() {
    if ($('confirm').open) return;
    if (running) { again = true; return; }
    running = true;
    again = false;
    try {
      await part('overview', 'api/overview', renderQueues);
      if (selected) {
        const q = encodeURIComponent(selected);
        await part('series', 'api/series?queue=' + q + (range === '1h' ? '' : '&range=' + range), renderSeries);
        await part('dead', 'api/dead?queue=' + q, renderDead);
        await part('history', 'api/history?queue=' + q + (historySearch ? '&id=' + encodeURIComponent(historySearch) : ''), renderHistory);
        await part('messages', 'api/messages?queue=' + q + '&state=' + $('messages-state').value + '&limit='
          + $('messages-page-size').value + (messagesAfter ? '&after=' + messagesAfter : ''), renderMessages, true);
        if (openMessage !== null) {
          await part('message', 'api/message?queue=' + q + '&id=' + openMessage, renderMessage, true);
        }
      }
      status('updated ' + time(new Date().toISOString()).slice(11, 19) + ' ' + (tz === 'UTC' ? 'UTC' : localZone));
    } catch (e) {
      status('refresh failed: ' + e.message);
    } finally {
      running = false;
      body.dataset.refreshes = String(Number(body.dataset.refreshes) + 1);
      if (again) refresh();
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
  const reloadMessages = () => { delete last.messages; delete last.messagesSteady; refresh(); };
  $('messages-state').addEventListener('change', () => { messagesAfter = 0; messagesPages.length = 0; reloadMessages(); });
  $('messages-page-size').addEventListener('change', () => { messagesAfter = 0; messagesPages.length = 0; reloadMessages(); });
  $('messages-next').addEventListener('click', () => {
    const next = $('messages-next').dataset.next;
    if (!next) return;
    messagesPages.push(messagesAfter);
    messagesAfter = Number(next);
    reloadMessages();
  });
  $('messages-first').addEventListener('click', () => { messagesAfter = 0; messagesPages.length = 0; reloadMessages(); });
  $('messages').addEventListener('click', (ev) => {
    const a = ev.target.closest('a.message-link');
    if (!a) return;
    ev.preventDefault();
    showMessage(Number(a.closest('tr').getAttribute('data-id')));
  });
  $('message-back').addEventListener('click', () => showMessage(null));
  for (const b of document.querySelectorAll('#chart-ranges button.range')) {
    b.addEventListener('click', () => {
      range = b.dataset.range;
      for (const o of document.querySelectorAll('#chart-ranges button.range')) o.classList.toggle('selected', o === b);
      delete last.series;
      refresh();
    });
  }
  $('tz').addEventListener('change', () => {
    tz = $('tz').value === 'local' ? 'local' : 'UTC';
    localStorage.setItem('sqlqueue.tz', tz);
    showZone();
    charts = null; // redrawn on the new time axis
    for (const k of Object.keys(last)) delete last[k];
    refresh();
  });
  showZone();
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

  // the address names the queue and the message shown: followed at load and when it changes (a link, back, typed)
  function follow() {
    const m = /^#queue=([^&]+)(?:&message=(\d+))?$/.exec(location.hash);
    if (!m) return;
    const name = decodeURIComponent(m[1]);
    if (name !== selected) select(name);
    const id = m[2] ? Number(m[2]) : null;
    if (id !== openMessage) showMessage(id);
  }
  window.addEventListener('hashchange', follow);
  follow();
  refresh();
  setInterval(refresh, refreshMs);
})();
