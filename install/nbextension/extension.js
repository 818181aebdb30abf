// commlab-widgets: the ipywidgets 8 front end for the classic Notebook
// (notebook 6), installed by `commlab install` as an nbextension and
// enabled in nbconfig/notebook.d/commlab-widgets.json.
//
// Debian 12's notebook ships ipywidgets 6, which cannot read protocol 2.1,
// so this wires @jupyter-widgets/html-manager (commlab-widgets.js, bundled
// from npm by `make widgets`) to the notebook's kernel comms and output
// areas, as widgetsnbextension does for ipykernel. It serves commlab
// kernels only: other kernels keep whatever widget front end they have.
define([
  'require', 'jquery', 'base/js/namespace', 'base/js/events', 'notebook/js/outputarea'
], function (require, $, Jupyter, events, outputarea) {
  'use strict';
  var MIME = 'application/vnd.jupyter.widget-view+json';
  var OutputArea = outputarea.OutputArea;

  // Errors are kept for the browser test to report.
  window.commlabErrors = window.commlabErrors || [];
  function report(what, err) {
    window.commlabErrors.push(what + ': ' + String(err) + (err && err.stack ? ' ' + err.stack.split('\n')[1] : ''));
    console.error('commlab-widgets: ' + what, err);
  }

  var manager = null;
  var pending = [];
  var registered = {};

  function isCommlab(kernel) {
    return !!(kernel && kernel.info_reply && kernel.info_reply.implementation === 'commlab');
  }

  // The kernel opens one comm per model on the target jupyter.widget; the
  // manager builds the model from the comm_open's state.
  function registerTarget(kernel) {
    if (!isCommlab(kernel) || registered[kernel.id]) { return; }
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
      return manager.handle_comm_open(shim, msg).catch(function (err) { report('comm_open', err); });
    });
  }

  // The view's display_data can arrive while the model's comm_open is still
  // being handled (the manager creates models asynchronously): wait for it.
  function modelFor(id) {
    return new Promise(function (resolve, reject) {
      function attempt(left) {
        var p = null;
        try { p = manager.get_model(id); } catch (e) { p = null; }
        if (p) { p.then(resolve, reject); return; }
        if (left <= 0) { reject(new Error('widget model ' + id + ' never arrived')); return; }
        setTimeout(function () { attempt(left - 1); }, 50);
      }
      attempt(200);
    });
  }

  function renderView(json, element) {
    modelFor(json.model_id).then(function (model) {
      return manager.create_view(model);
    }).then(function (view) {
      // The notebook attaches the output area after the renderer returns;
      // lumino can only attach a view to an element in the document.
      return new Promise(function (resolve) {
        (function wait() {
          if (document.body.contains(element)) { resolve(manager.display_view(view, element)); return; }
          requestAnimationFrame(wait);
        })();
      });
    }).catch(function (err) {
      element.textContent = 'widget error: ' + err;
      report('view', err);
    });
  }

  function kernel() { return Jupyter.notebook && Jupyter.notebook.kernel; }

  function load_ipython_extension() {
    // Another widget front end (widgetsnbextension) may have claimed the
    // view type already; it keeps serving other kernels.
    var previous = OutputArea.append_map && OutputArea.append_map[MIME];
    // The notebook calls .addClass on what a renderer returns (execute
    // results), so the renderer returns a jQuery element, not a DOM node.
    OutputArea.prototype.register_mime_type(MIME, function (json, md, element, handleInserted) {
      if (!isCommlab(kernel()) && previous) {
        return previous.apply(this, arguments);
      }
      var div = $('<div/>').addClass('output_subarea commlab-widget-area');
      element.append(div);
      if (manager) { renderView(json, div[0]); } else { pending.push([json, div[0]]); }
      return div;
    }, { safe: true, index: 0 });

    var css = document.createElement('link');
    css.rel = 'stylesheet';
    css.href = require.toUrl('./commlab-widgets.css');
    document.head.appendChild(css);

    // The bundle is built with define compiled away, so its UMD parts do
    // not register with the notebook's requirejs.
    var script = document.createElement('script');
    script.src = require.toUrl('./commlab-widgets.js');
    script.onload = function () {
      manager = new window.CommlabWidgets.HTMLManager();
      window.commlabWidgetManager = manager;
      registerTarget(kernel());
      events.on('kernel_ready.Kernel', function (evt, data) { registerTarget(data.kernel); });
      // A restarted kernel's widgets are gone.
      events.on('kernel_restarting.Kernel', function () {
        manager.clear_state().catch(function (err) { report('clear_state', err); });
      });
      pending.forEach(function (p) { renderView(p[0], p[1]); });
      pending = [];
      window.commlabWidgetsReady = true;
    };
    script.onerror = function () { report('load', new Error('commlab-widgets.js failed to load')); };
    document.head.appendChild(script);
  }

  return { load_ipython_extension: load_ipython_extension };
});
