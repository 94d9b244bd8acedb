// Every route of spec §2. Page files are thin; their features live in src/features/.
import { Navigate, Route, Routes, useLocation } from "react-router-dom";
import { AuthPage } from "@/pages/Auth";
import { BlogPage } from "@/pages/Blog";
import { BlogPostPage } from "@/pages/BlogPost";
import { DashboardPage } from "@/pages/Dashboard";
import { LandingPage } from "@/pages/Landing";
import { LoginPage } from "@/pages/Login";
import { NotFoundPage } from "@/pages/NotFound";
import { PrivacyPage } from "@/pages/Privacy";
import { ResetPasswordPage } from "@/pages/ResetPassword";
import { SignupPage } from "@/pages/Signup";
import { TermsPage } from "@/pages/Terms";
import { TestEmailPage } from "@/pages/TestEmail";
import { UnsubscribePage } from "@/pages/Unsubscribe";
import { VerifyEmailPage } from "@/pages/VerifyEmail";
import { LaterFeaturePage } from "@/pages/LaterFeature";
import { PageViewReporter } from "@/features/consent/PageViewReporter";

/** /subscribe/fix-payment is referenced by the spec but leads to the repair page. */
function FixPaymentRedirect() {
  const location = useLocation();
  return <Navigate to={`/debug-subscription${location.search}`} replace />;
}

export function AppRoutes() {
  return (
    <>
      <PageViewReporter />
      <Routes>
        <Route path="/" element={<LandingPage />} />
        <Route path="/auth" element={<AuthPage />} />
        <Route path="/login" element={<LoginPage />} />
        <Route path="/signup" element={<SignupPage />} />
        <Route path="/verify-email" element={<VerifyEmailPage />} />
        <Route path="/reset-password" element={<ResetPasswordPage />} />
        <Route path="/dashboard" element={<DashboardPage />} />
        <Route path="/subscribe" element={<LaterFeaturePage feature="billing" />} />
        <Route path="/subscribe/fix-payment" element={<FixPaymentRedirect />} />
        <Route path="/checkout" element={<LaterFeaturePage feature="billing" />} />
        <Route path="/payment" element={<LaterFeaturePage feature="billing" />} />
        <Route path="/payment-success" element={<LaterFeaturePage feature="billing" />} />
        <Route path="/finalizing-subscription" element={<LaterFeaturePage feature="billing" />} />
        <Route path="/debug-subscription" element={<LaterFeaturePage feature="billing" />} />
        <Route path="/test-email" element={<TestEmailPage />} />
        <Route path="/unsubscribe" element={<UnsubscribePage />} />
        <Route path="/terms" element={<TermsPage />} />
        <Route path="/privacy" element={<PrivacyPage />} />
        <Route path="/blog" element={<BlogPage />} />
        <Route path="/blog/:id" element={<BlogPostPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </>
  );
}
