import './base.css';
import './runs.css';
import '../../jupyter_agents/notebook/static/run_view.css';
import './saved_forms.css';
import './chat.css';
import './assist.css';
import '../../jupyter_agents/notebook/static/eval_report.css';
