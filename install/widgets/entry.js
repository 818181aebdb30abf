// The ipywidgets 8 front end `commlab install` puts into the classic
// Notebook (nbextension commlab-widgets): @jupyter-widgets/html-manager's
// HTMLManager, which loads @jupyter-widgets/base, controls and output by
// itself, and the controls' CSS. The manager is imported from its module
// rather than the package index, which would add Font Awesome (4 MB of
// fonts the notebook already has).
import { HTMLManager } from '@jupyter-widgets/html-manager/lib/htmlmanager';
import '@jupyter-widgets/controls/css/widgets.css';

export { HTMLManager };
