/*
 * The pages' forms, a little kinder with JavaScript (served from views/static, allowed by the
 * CSP's script-src 'self'; nothing inline). Without it every form works exactly the same.
 * - A form marked data-progress="Saving…" says so while it is sent: its submit buttons are
 *   disabled, a live region announces the words, and a second click sends nothing more. The
 *   words are the page's, in its language (written with t() by the view): none are made here.
 * - An error summary (views/shared/error-summary.ejs) takes the focus when the page opens, so a
 *   screen reader reads it first; each of its links moves the focus to its field.
 */
(function () {
  'use strict';

  function progressOf(form) {
    var status = form.querySelector('.form-progress');
    if (!status) {
      // Present (empty) from the start: a live region added with its text is not always announced.
      status = document.createElement('span');
      status.className = 'form-progress';
      // A polite live region, not role=status: a page's status role is its one message after a save.
      status.setAttribute('aria-live', 'polite');
      var buttons = form.querySelectorAll('button[type=submit], button:not([type]), input[type=submit]');
      var last = buttons[buttons.length - 1];
      if (last) last.insertAdjacentElement('afterend', status);
      else form.appendChild(status);
    }
    return status;
  }

  function watch(form) {
    var status = progressOf(form);
    var sending = false;
    form.addEventListener('submit', function (event) {
      if (sending) {
        event.preventDefault();
        return;
      }
      sending = true;
      form.setAttribute('aria-busy', 'true');
      status.textContent = form.getAttribute('data-progress');
      // Disabled only after this event: a disabled button would drop its own name and value
      // (name="action" value="on") from what the browser is about to send.
      setTimeout(function () {
        var buttons = form.querySelectorAll('button, input[type=submit]');
        for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
      }, 0);
    });
    // Back to this page from the browser's history: the form is ready again.
    window.addEventListener('pageshow', function (event) {
      if (!event.persisted) return;
      sending = false;
      form.removeAttribute('aria-busy');
      status.textContent = '';
      var buttons = form.querySelectorAll('button, input[type=submit]');
      for (var i = 0; i < buttons.length; i++) buttons[i].disabled = false;
    });
  }

  function focusSummary() {
    var summary = document.getElementById('error-summary');
    if (!summary) return;
    summary.focus();
    summary.addEventListener('click', function (event) {
      var link = event.target.closest ? event.target.closest('a[href^="#"]') : null;
      if (!link) return;
      var field = document.getElementById(link.getAttribute('href').slice(1));
      if (!field) return;
      event.preventDefault();
      field.scrollIntoView({ block: 'center' });
      field.focus();
    });
  }

  var forms = document.querySelectorAll('form[data-progress]');
  for (var i = 0; i < forms.length; i++) watch(forms[i]);
  focusSummary();
})();
