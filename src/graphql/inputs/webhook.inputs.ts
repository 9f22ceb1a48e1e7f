import { Field, InputType } from 'type-graphql';

@InputType({ description: 'A new webhook: where to POST, which changes, and the secret that signs them.' })
export class CreateWebhookInput {
  @Field({ description: 'http(s) URL; other schemes are refused, and so are loopback, private and link-local targets unless the operator allows them (TASKBASE_WEBHOOK_ALLOWED_HOSTS).' })
  url: string;

  @Field(() => String, { nullable: true, description: 'Domain prefix: the changes of this domain and those under it; null for every change.' })
  domain?: string | null;

  @Field({ description: 'Shared secret for the signature header; at least 16 characters. Never answered back.' })
  secret: string;
}
