// Somno: small progressive enhancements. Every page works without this file.
(function () {
  'use strict';

  // The idle warning (decision 0111). Shortly before the session would end it says when, and «Seguir trabajando»
  // renews the session without leaving the page. Typing in a form is activity: when the warning's time comes after
  // some, the session is renewed quietly instead. While shown, the warning's height is reserved below the page, so it
  // covers no control.
  var idle = Number(document.body.getAttribute('data-idle-minutes'));
  var idleBox = idle > 0 ? document.getElementById('idle-warning') : null;
  if (idleBox) {
    var idleMs = idle * 60 * 1000;
    var warnBefore = Math.min(2 * 60 * 1000, idleMs * 0.2);
    var lastContact = Date.now();
    var lastActivity = 0;
    var idleTimer = null;
    var idleEnded = false;
    var idleText = idleBox.querySelector ? idleBox.querySelector('[data-idle-text]') : null;
    var renewButton = idleBox.querySelector ? idleBox.querySelector('[data-idle-renew]') : null;
    var setIdleText = function (text) {
      if (idleText) idleText.textContent = text;
    };
    var reserve = function (on) {
      var height = on && idleBox.offsetHeight ? idleBox.offsetHeight + 16 + 'px' : '';
      if (document.body.style) document.body.style.paddingBottom = height;
      if (document.documentElement && document.documentElement.style) document.documentElement.style.scrollPaddingBottom = height;
    };
    var clock = function (ms) {
      var d = new Date(ms);
      try {
        return d.toLocaleTimeString('es-CO', { hour: 'numeric', minute: '2-digit' });
      } catch (e) {
        return d.getHours() + ':' + ('0' + d.getMinutes()).slice(-2);
      }
    };
    var schedule = function (ms, fn) {
      if (idleTimer !== null && typeof clearTimeout === 'function') clearTimeout(idleTimer);
      idleTimer = setTimeout(fn, Math.max(0, ms));
    };
    var ended = function () {
      idleEnded = true;
      setIdleText(
        'Su sesión terminó por inactividad. Lo que escribió no se pierde: al enviar el formulario se le pedirá iniciar sesión y volverá con lo escrito.'
      );
      if (renewButton) renewButton.hidden = true;
      idleBox.hidden = false;
      reserve(true);
    };
    var show = function () {
      var end = lastContact + idleMs;
      setIdleText('Su sesión se cerrará por inactividad a las ' + clock(end) + '. Escribir en un formulario también la mantiene abierta.');
      idleBox.hidden = false;
      reserve(true);
      schedule(end - Date.now(), ended);
    };
    var watch = function () {
      schedule(lastContact + idleMs - warnBefore - Date.now(), function () {
        // A timer that fires late (a computer that slept) finds the session already ended.
        if (Date.now() >= lastContact + idleMs) ended();
        else if (lastActivity >= lastContact) renew();
        else show();
      });
    };
    var renew = function () {
      var field = document.querySelector('input[name="csrfmiddlewaretoken"]');
      if (!field || !window.fetch) return show();
      var sent = Date.now();
      window
        .fetch('/users/session/renew/', {
          method: 'POST',
          credentials: 'same-origin',
          redirect: 'manual',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-CSRFToken': field.value },
          body: 'csrfmiddlewaretoken=' + encodeURIComponent(field.value),
        })
        .then(function (res) {
          if (res.status !== 204) return ended();
          lastContact = sent;
          idleBox.hidden = true;
          reserve(false);
          watch();
        })
        .catch(function () {
          show();
        });
    };
    if (renewButton) {
      renewButton.addEventListener('click', function () {
        renew();
      });
    }
    var activity = function (event) {
      var target = event.target;
      if (!target || !target.closest || !target.closest('form')) return;
      lastActivity = Date.now();
      if (!idleBox.hidden && !idleEnded) renew();
    };
    document.addEventListener('input', activity);
    document.addEventListener('change', activity);
    watch();
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

  // A form posted after its session ended comes back filled on its page once its user logged in again (decision
  // 0110): the server kept what was typed and placed it in #restored-form; nothing was saved. A form refused through
  // a redirect (a new cycle's date) comes back the same way, with its errors beside its fields.
  var restored = document.getElementById('restored-form');
  if (restored) {
    var fields = [];
    try {
      fields = JSON.parse(restored.getAttribute('data-fields') || '[]');
    } catch (e) {
      fields = [];
    }
    var action = restored.getAttribute('data-action');
    var target = null;
    Array.prototype.forEach.call(document.querySelectorAll('form'), function (form) {
      var path = new URL(form.getAttribute('action') || window.location.href, window.location.href).pathname;
      if (!target && path === action && (form.getAttribute('method') || '').toLowerCase() === 'post') target = form;
    });
    if (target) {
      var byName = {};
      fields.forEach(function (pair) {
        (byName[pair[0]] = byName[pair[0]] || []).push(pair[1]);
      });
      var used = {};
      var first = null;
      Array.prototype.forEach.call(target.elements, function (el) {
        var values = el.name && byName[el.name];
        if (!values || el.type === 'hidden' || el.type === 'file' || el.type === 'submit' || el.type === 'button') return;
        if (el.type === 'checkbox' || el.type === 'radio') {
          el.checked = values.indexOf(el.value) >= 0;
        } else if (el.tagName === 'SELECT') {
          var want = values[0];
          var found = Array.prototype.some.call(el.options, function (o) {
            return o.value === want;
          });
          if (!found && want !== '') {
            var opt = document.createElement('option');
            opt.value = want;
            opt.textContent = want;
            el.appendChild(opt);
          }
          el.value = want;
        } else {
          var i = used[el.name] || 0;
          if (i >= values.length) return;
          el.value = values[i];
          used[el.name] = i + 1;
        }
        if (!first && el.value) first = el;
      });
      if (dep && target.contains(dep) && dep.dispatchEvent) dep.dispatchEvent(new Event('change'));
      var errors = {};
      try {
        errors = JSON.parse(restored.getAttribute('data-errors') || '{}');
      } catch (e) {
        errors = {};
      }
      Object.keys(errors).forEach(function (name, i) {
        var field = target.elements[name];
        if (!field || !field.parentNode) return;
        var note = document.createElement('p');
        note.className = 'field-error';
        note.id = 'error_back_' + name + '_' + i;
        note.textContent = errors[name];
        field.parentNode.insertBefore(note, field.nextSibling);
        field.setAttribute('aria-invalid', 'true');
        var described = field.getAttribute('aria-describedby');
        field.setAttribute('aria-describedby', described ? described + ' ' + note.id : note.id);
        if (field.parentNode.classList) field.parentNode.classList.add('field-invalid');
        if (i === 0) first = field;
      });
      if (first) {
        first.focus();
        if (first.scrollIntoView) first.scrollIntoView({ block: 'center' });
      }
    }
  }
})();
