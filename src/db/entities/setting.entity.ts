import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Operator settings (reminders), stored so every server process reads the same. */
@Entity('settings')
export class SettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  key: string;

  @Column({ type: 'simple-json' })
  value: unknown;
}
