// The signed-in header (spec §2): title, plan badge, email, Upgrade (by plan), the operator
// console for operators, and Logout.
import { useState } from "react";
import { useNavigate } from "react-router-dom";
import { BrandMark } from "@/components/layout/BrandMark";
import { ButtonLink } from "@/components/layout/ButtonLink";
import { Button } from "@/components/ui/Button";
import { errorMessage } from "@/lib/api";
import { signOut, type CurrentUser } from "@/state/session";
import { toast } from "@/state/toast";
import { TierBadge } from "./TierBadge";
import { upgradeOfferFor } from "./tier";

export function DashboardHeader({ user }: { user: CurrentUser }) {
  const navigate = useNavigate();
  const [signingOut, setSigningOut] = useState(false);
  const upgrade = upgradeOfferFor(user.subscriptionTier);

  const logout = async () => {
    setSigningOut(true);
    try {
      await signOut();
    } catch (error) {
      setSigningOut(false);
      toast({
        title: "Logout Failed",
        description: errorMessage(error, "We could not sign you out. Please try again."),
        variant: "destructive",
      });
      return;
    }
    toast({ title: "Logged Out", description: "You have been signed out of Papertide.", variant: "success" });
    navigate("/auth", { replace: true });
  };

  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-x-6 gap-y-3 px-4 py-3 sm:px-6 lg:px-8">
        <div className="flex items-center gap-3">
          <h1>
            <BrandMark />
          </h1>
          <TierBadge tier={user.subscriptionTier} />
        </div>
        <div className="flex min-w-0 flex-wrap items-center gap-2 sm:gap-3">
          <span className="max-w-[16rem] truncate text-sm text-slate-600" title={user.email}>
            {user.email}
          </span>
          {user.isAdmin ? (
            <ButtonLink to="/admin" variant="outline" size="sm">
              Operator console
            </ButtonLink>
          ) : null}
          {upgrade ? (
            <ButtonLink to={upgrade.to} size="sm">
              {upgrade.label}
            </ButtonLink>
          ) : null}
          <Button variant="outline" size="sm" onClick={logout} disabled={signingOut}>
            Logout
          </Button>
        </div>
      </div>
    </header>
  );
}
