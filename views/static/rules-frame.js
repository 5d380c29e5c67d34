/*
 * The rules editor page: a browser cannot tell a script whether a cross-origin frame was
 * refused (X-Frame-Options, frame-ancestors) or failed to load, so the plugin asks the
 * editor's address itself (GET .../rules/check) and this script says plainly what went
 * wrong. Without JavaScript the page keeps its permanent note and the new-window link.
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
