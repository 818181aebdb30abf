// The ipywidgets 8 manager and models the browser test's front end uses.
// HTMLManager knows @jupyter-widgets/base, controls and output by itself;
// esbuild writes the widgets' CSS (fonts inlined) beside the bundle.
import { HTMLManager } from '@jupyter-widgets/html-manager';
import '@jupyter-widgets/controls/css/widgets.css';

export { HTMLManager };
