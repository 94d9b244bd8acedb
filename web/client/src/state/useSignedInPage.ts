// The start of a page only a signed-in user sees: asks the server who is signed in (once, on
// mount), sends an anonymous visitor to /auth, and answers whether the page may show.
import { useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router-dom";
import { refreshCurrentUser, type CurrentUser } from "./session";

/** True once the server said who is signed in (then `currentUser` holds them). `onSignedIn`
 * runs with that user, `onLeave` when the page goes; both as they were at the first render. */
export function useSignedInPage(onSignedIn?: (user: CurrentUser) => void, onLeave?: () => void): boolean {
  const navigate = useNavigate();
  const [checked, setChecked] = useState(false);
  const hooks = useRef({ onSignedIn, onLeave });

  useEffect(() => {
    let mounted = true;
    const { onSignedIn: signedIn, onLeave: leave } = hooks.current;
    refreshCurrentUser()
      .catch(() => null)
      .then((user) => {
        if (!mounted) return;
        if (!user) {
          navigate("/auth", { replace: true });
          return;
        }
        setChecked(true);
        signedIn?.(user);
      });
    return () => {
      mounted = false;
      leave?.();
    };
  }, [navigate]);

  return checked;
}
