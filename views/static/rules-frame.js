/*
 * The rules editor page: a browser cannot tell a script whether a cross-origin frame was
 * refused (X-Frame-Options, frame-ancestors) or failed to load, so the plugin asks the
 * editor's address itself (GET .../rules/check) and this script says plainly what went
 * wrong. Without JavaScript the page keeps its permanent note and the new-window link, and
 * the frame its height from the stylesheet.
 */
(function () {
  'use strict';
  var frame = document.getElementById('rules-editor');
  var note = document.getElementById('frame-note');
  if (!frame || !note) return;
  var loaded = false;
  var failed = false;
  var MESSAGES = {
    refuses_framing:
      'The protection service does not allow its editor to be shown inside this page. Use “Open in a new window” above: your rules are there.',
    unreachable:
      'The protection service’s editor is not answering right now. Try “Open in a new window” above, or come back in a few minutes.',
    slow: 'The editor is taking long to load. If it does not appear, use “Open in a new window” above.',
  };
  function show(kind) {
    note.hidden = false;
    note.className = 'note ' + (kind === 'slow' ? 'warn' : 'error');
    note.setAttribute('role', 'alert');
    note.textContent = MESSAGES[kind];
  }
  frame.addEventListener('load', function () {
    loaded = true;
  });
  // The editor may tell its height ({type: 'dashboard-height', height}, docs/provider-api.md):
  // the frame then takes it, so the page scrolls and the frame does not. Only the frame's own
  // origin and window are listened to; any other message is ignored.
  var frameOrigin = new window.URL(frame.src, window.location.href).origin;
  window.addEventListener('message', function (event) {
    if (event.origin !== frameOrigin || event.source !== frame.contentWindow) return;
    var data = event.data;
    if (!data || data.type !== 'dashboard-height') return;
    var height = Number(data.height);
    if (!isFinite(height) || height <= 0) return;
    frame.style.height = Math.min(Math.ceil(height), 20000) + 'px';
    frame.classList.add('sized');
    // The editor is there, whether or not its load event came before this script.
    loaded = true;
  });
  // The editor may have loaded before this script ran, its first height unheard: ask again now
  // and at its load (a request reaching the frame's blank first page is dropped by the origin).
  function askHeight() {
    if (frame.contentWindow) frame.contentWindow.postMessage({ type: 'dashboard-height-request' }, frameOrigin);
  }
  frame.addEventListener('load', askHeight);
  askHeight();
  fetch(note.getAttribute('data-check'), { credentials: 'same-origin', headers: { accept: 'application/json' } })
    .then(function (response) {
      return response.ok ? response.json() : { status: 'unknown' };
    })
    .then(function (answer) {
      if (MESSAGES[answer.status]) {
        failed = true;
        frame.classList.add('failed');
        show(answer.status);
      } else if (answer.status === 'ok') {
        note.textContent = 'Changes you save in the editor apply at once. You can also open it in a new window.';
      }
    })
    .catch(function () {});
  setTimeout(function () {
    if (!loaded && !failed) show('slow');
  }, 15000);
})();
