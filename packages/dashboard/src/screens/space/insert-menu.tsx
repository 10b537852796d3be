import { Button, Header, Menu, MenuItem, MenuSection, MenuTrigger, Popover, Text } from 'react-aria-components';
import type { InstallationPage } from '../../api/queries';

export interface InsertedBlock {
  key: string;
  installationId: string;
  blockId: string;
  title: string;
}

let inserted = 0;

/** Insert: the quick insert menu, with the blocks of every integration active in the space. */
export function InsertMenu({
  installations,
  onInsert,
}: {
  installations: InstallationPage[];
  onInsert(block: InsertedBlock): void;
}) {
  const sections = installations.filter((i) => i.status === 'active' && i.blocks.length > 0);
  return (
    <MenuTrigger>
      <Button className="button primary">Insert</Button>
      <Popover className="popover">
        <Menu
          className="menu"
          aria-label="Quick insert"
          renderEmptyState={() => <p className="menu-item muted">No active integration here has blocks.</p>}
          onAction={(key) => {
            const [installationId = '', blockId = ''] = String(key).split('\u0000');
            const installation = sections.find((i) => i.id === installationId);
            const block = installation?.blocks.find((b) => b.id === blockId);
            if (block) onInsert({ key: `${++inserted}`, installationId, blockId, title: block.title });
          }}
        >
          {sections.map((installation) => (
            <MenuSection key={installation.id}>
              <Header className="menu-section-header">{installation.integrationTitle}</Header>
              {installation.blocks.map((block) => (
                <MenuItem
                  key={block.id}
                  id={`${installation.id}\u0000${block.id}`}
                  textValue={block.title}
                  className="menu-item"
                  {...(block.description ? { title: block.description } : {})}
                >
                  {/* Named by the block's title alone (its visible text); the description is read out as
                      its description, and shown on hover. */}
                  <Text slot="label">{block.title}</Text>
                  {block.description ? (
                    <Text slot="description" className="visually-hidden">
                      {block.description}
                    </Text>
                  ) : null}
                </MenuItem>
              ))}
            </MenuSection>
          ))}
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}
