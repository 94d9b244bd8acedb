// What the dashboard body says until its cards (search terms, digests, preferences) are built.
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/Card";

export function WelcomeCard({ email }: { email: string }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Welcome to Papertide</CardTitle>
        <p className="text-sm text-slate-500">Signed in as {email}</p>
      </CardHeader>
      <CardContent className="space-y-3 text-slate-600">
        <p>
          This is your dashboard. Your search terms, your recent email digests and your email preferences will appear
          here.
        </p>
        <p className="rounded-lg bg-brand-50 px-4 py-3 text-sm font-medium text-brand-900">
          Your first digest arrives within a week.
        </p>
      </CardContent>
    </Card>
  );
}
