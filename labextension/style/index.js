import './base.css';
import './runs.css';
import '../../jupyter_agents/notebook/static/run_view.css';
