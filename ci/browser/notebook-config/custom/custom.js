// commlab browser test: an ipywidgets 8 front end for the classic Notebook.
// Debian's notebook ships ipywidgets 6, which cannot read protocol 2.1, so
// this wires @jupyter-widgets/html-manager (bundled from npm) to the
// notebook's kernel comms and output areas, as widgetsnbextension would.
define(['base/js/namespace', 'base/js/events', 'notebook/js/outputarea'], function (Jupyter, events, outputarea) {
  'use strict';
  // Errors are kept for the test to report.
  window.commlabErrors = [];
  window.addEventListener('error', function (e) { window.commlabErrors.push(String(e.message || e)); });
  window.addEventListener('unhandledrejection', function (e) { window.commlabErrors.push('unhandled rejection: ' + String(e.reason)); });
  var base = Jupyter.notebook ? Jupyter.notebook.base_url : '/';
  var css = document.createElement('link');
  css.rel = 'stylesheet';
  css.href = base + 'custom/commlab-widgets.css';
  document.head.appendChild(css);

  var manager = null;
  var pending = [];
  var registered = {};

  function registerTarget(kernel) {
    if (!kernel || registered[kernel.id]) { return; }
    registered[kernel.id] = true;
    kernel.comm_manager.register_target('jupyter.widget', function (comm, msg) {
      var shim = {
        comm_id: comm.comm_id,
        target_name: comm.target_name,
        send: function (data, callbacks, metadata, buffers) { return comm.send(data, callbacks, metadata, buffers); },
        close: function (data, callbacks, metadata, buffers) { return comm.close(data, callbacks, metadata, buffers); },
        on_msg: function (cb) { comm.on_msg(cb); },
        on_close: function (cb) { comm.on_close(cb); }
      };
      return manager.handle_comm_open(shim, msg);
    });
  }

  // The view's display_data can arrive while the model's comm_open is still
  // being handled (the manager creates models asynchronously): wait for it.
  function modelFor(id, tries) {
    return new Promise(function (resolve, reject) {
      function attempt(left) {
        var p;
        try { p = manager.get_model(id); } catch (e) { p = null; }
        if (p) { p.then(resolve, reject); return; }
        if (left <= 0) { reject(new Error('widget model ' + id + ' never arrived')); return; }
        setTimeout(function () { attempt(left - 1); }, 50);
      }
      attempt(tries);
    });
  }

  function renderView(json, element) {
    modelFor(json.model_id, 200).then(function (model) {
      return manager.create_view(model);
    }).then(function (view) {
      // The notebook attaches the output area after this renderer returns;
      // lumino can only attach a view to an element in the document.
      return new Promise(function (resolve) {
        (function wait() {
          if (document.body.contains(element)) { resolve(manager.display_view(view, element)); return; }
          requestAnimationFrame(wait);
        })();
      });
    }).catch(function (err) {
      element.textContent = 'widget error: ' + err;
      window.commlabErrors.push('widget: ' + String(err) + (err && err.stack ? ' ' + err.stack.split('\n')[1] : ''));
    });
  }

  outputarea.OutputArea.prototype.register_mime_type('application/vnd.jupyter.widget-view+json',
    function (json, md, element) {
      var div = document.createElement('div');
      div.className = 'output_subarea commlab-widget-area';
      element.append(div);
      if (manager) { renderView(json, div); } else { pending.push([json, div]); }
      return div;
    }, { safe: true, index: 0 });

  // The bundle is built with define compiled away (package.json), so its
  // UMD parts do not register with the notebook's requirejs.
  var script = document.createElement('script');
  script.src = base + 'custom/commlab-widgets.js';
  script.onload = function () {
    manager = new window.CommlabWidgets.HTMLManager();
    window.commlabWidgetManager = manager;
    if (Jupyter.notebook && Jupyter.notebook.kernel) { registerTarget(Jupyter.notebook.kernel); }
    events.on('kernel_created.Kernel kernel_created.Session kernel_ready.Kernel', function (evt, data) {
      registerTarget(data.kernel);
    });
    pending.forEach(function (p) { renderView(p[0], p[1]); });
    pending = [];
    window.commlabWidgetsReady = true;
  };
  script.onerror = function () { window.commlabErrors.push('commlab widgets bundle failed to load'); };
  document.head.appendChild(script);
});
