// /blog/:id: one post, or "Post Not Found" for an unknown id (spec §2 "Static pages").
import { useParams } from "react-router-dom";
import { PublicLayout } from "@/components/layout/PublicLayout";
import { BlogPostScreen } from "@/features/blog";

export function BlogPostPage() {
  const { id } = useParams();
  return (
    <PublicLayout footerVariant="light">
      <BlogPostScreen id={id} />
    </PublicLayout>
  );
}
