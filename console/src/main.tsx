import { render } from 'preact';
import { loadConfig } from './api';
import { App } from './app';
import { resume } from './session';
import './styles.css';

const root = document.getElementById('app')!;

async function start() {
  try {
    await loadConfig();
  } catch (error) {
    root.innerHTML = '';
    const p = document.createElement('p');
    p.className = 'error';
    p.setAttribute('role', 'alert');
    p.textContent = `${(error as Error).message} Reload the page to try again.`;
    root.append(p);
    return;
  }
  render(<App />, root);
  await resume();
}

void start();
