import { LocationProvider, Route, Router } from 'preact-iso';
import { Loading } from './components/async';
import { Layout, PageTitle } from './components/layout';
import { Accounts } from './pages/accounts';
import { Diagnostics } from './pages/diagnostics';
import { ExecutionDetail } from './pages/execution-detail';
import { Executions } from './pages/executions';
import { Failures } from './pages/failures';
import { Overview } from './pages/overview';
import { Payments } from './pages/payments';
import { SignIn } from './pages/sign-in';
import { UserDetail } from './pages/user-detail';
import { Users } from './pages/users';
import { Webhooks } from './pages/webhooks';
import { BASE, paths } from './paths';
import { useSession } from './session';
import type { PublicUser } from './api';

function NotFound() {
  return (
    <>
      <PageTitle title="Not found">Page not found</PageTitle>
      <p>
        The console has no such page. <a href={paths.overview}>Go to the overview</a>.
      </p>
    </>
  );
}

function Pages({ user }: { user: PublicUser }) {
  return (
    <Layout user={user}>
      <Router>
        <Route path={BASE} component={Overview} />
        <Route path={paths.executions} component={Executions} />
        <Route path={`${BASE}executions/:trackingId`} component={ExecutionDetail} />
        <Route path={paths.failures} component={Failures} />
        <Route path={paths.users} component={Users} />
        <Route path={`${BASE}users/:id`} component={UserDetail} />
        <Route path={paths.payments} component={Payments} />
        <Route path={paths.accounts} component={Accounts} />
        <Route path={paths.webhooks} component={Webhooks} />
        <Route path={paths.diagnostics} component={Diagnostics} />
        <Route default component={NotFound} />
      </Router>
    </Layout>
  );
}

export function App() {
  const session = useSession();
  if (session.kind === 'starting') {
    return (
      <main id="main">
        <Loading what="the console" />
      </main>
    );
  }
  if (session.kind === 'signed-out') return <SignIn notice={session.notice} tone={session.tone} />;
  return (
    <LocationProvider scope={BASE}>
      <Pages user={session.user} />
    </LocationProvider>
  );
}
