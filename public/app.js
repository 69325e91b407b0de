// Somno: small progressive enhancements. Every page works without this file.
(function () {
  'use strict';

  // Warn shortly before the session ends for inactivity.
  var idle = Number(document.body.getAttribute('data-idle-minutes'));
  if (idle > 0) {
    var warnAfter = Math.max(idle - 2, idle * 0.8) * 60 * 1000;
    setTimeout(function () {
      var box = document.getElementById('idle-warning');
      if (box) box.hidden = false;
    }, warnAfter);
  }

  // After an invalid form, the summary of its errors takes the focus (autofocus does it too where supported).
  var summary = document.querySelector('[data-error-summary]');
  if (summary && document.activeElement !== summary) summary.focus();
  // Its links put the focus in the field they name (following an in-page link only scrolls to it).
  if (summary) {
    summary.addEventListener('click', function (event) {
      var link = event.target && event.target.closest ? event.target.closest('a[href^="#"]') : null;
      var field = link && document.getElementById(link.getAttribute('href').slice(1));
      if (!field) return;
      event.preventDefault();
      field.focus();
      if (field.scrollIntoView) field.scrollIntoView({ block: 'center' });
    });
  }

  // Forms that ask for a confirmation before they are sent (voiding a record; a cycle is terminated on a page of
  // its own that asks).
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var question = form && form.getAttribute && form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) event.preventDefault();
  });

  // The spreadsheet import: show that a large file is being uploaded and checked (the page answers when done).
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form || !form.hasAttribute || !form.hasAttribute('data-import-upload') || event.defaultPrevented) return;
    var progress = document.getElementById('import-progress');
    if (progress) progress.hidden = false;
    var button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
  });

  // Narrow the municipality list to the chosen department. The catalogue is a file of its own (data-ciudad names
  // it), cached by the browser; it is asked for when the page opens, so a change finds it ready. Without it the
  // list stays as the server rendered it, and the server checks the pair on save.
  var dep = document.querySelector('select[data-departamento]');
  var city = document.querySelector('select[data-ciudad]');
  var catalogUrl = city && city.getAttribute('data-ciudad');
  if (dep && city && catalogUrl && window.fetch) {
    var catalog = fetch(catalogUrl, { credentials: 'same-origin' })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .catch(function () {
        return null;
      });
    dep.addEventListener('change', function () {
      var chosen = dep.value;
      catalog.then(function (byDep) {
        if (!byDep || dep.value !== chosen) return;
        var list = byDep[chosen] || [];
        var current = city.value;
        while (city.options.length > 1) city.remove(1);
        list.forEach(function (name) {
          var opt = document.createElement('option');
          opt.value = name;
          opt.textContent = name;
          if (name === current) opt.selected = true;
          city.appendChild(opt);
        });
      });
    });
  }
})();
