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

  // Forms that ask for a confirmation before they are sent (e.g. terminating a cycle).
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var question = form && form.getAttribute && form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) event.preventDefault();
  });

  // Narrow the municipality list to the chosen department, from the options the server rendered.
  var dep = document.querySelector('select[data-departamento]');
  var city = document.querySelector('select[data-ciudad]');
  var catalog = document.getElementById('divipola-json');
  if (dep && city && catalog) {
    var byDep = JSON.parse(catalog.textContent || '{}');
    dep.addEventListener('change', function () {
      var list = byDep[dep.value] || [];
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
  }
})();
