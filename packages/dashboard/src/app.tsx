/** The pages: everything but sign-in needs a session; a `#code=` fragment signs in first. */
import { Route, Routes } from 'react-router';
import { ErrorNote } from './components/error-note';
import { Loading } from './components/loading';
import { AppLayout } from './screens/layout/app-layout';
import { NotFoundScreen } from './screens/layout/not-found-screen';
import { SignInScreen } from './screens/sign-in/sign-in-screen';
import { useCodeFromFragment } from './screens/sign-in/use-code-from-fragment';
import { useSession } from './session/session';

export function App() {
  const fragment = useCodeFromFragment();
  const session = useSession();
  if (fragment.pending || session.isPending) return <Loading label="Signing in" />;
  if (session.isError) return <ErrorNote error={session.error} />;
  if (session.data === null) return <SignInScreen error={fragment.error} />;
  return (
    <Routes>
      <Route element={<AppLayout session={session.data} />}>
        <Route index element={<HomeRoute />} />
        <Route path="*" element={<NotFoundScreen />} />
      </Route>
    </Routes>
  );
}

function HomeRoute() {
  return <h1>Portico</h1>;
}
