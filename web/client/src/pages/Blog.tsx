// /blog: the list of posts (spec §2 "Static pages").
import { PublicLayout } from "@/components/layout/PublicLayout";
import { BlogIndex } from "@/features/blog";

export function BlogPage() {
  return (
    <PublicLayout footerVariant="light">
      <BlogIndex />
    </PublicLayout>
  );
}
