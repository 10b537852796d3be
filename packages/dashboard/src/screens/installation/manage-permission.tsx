import { createContext, type ReactNode, useContext } from 'react';

/**
 * Whether the signed-in person may manage the installation on screen (the contract's Roles: an
 * admin of its organization, or the operator). A member reads everything, and sees each
 * management action disabled with the reason, since the API would refuse it with 403.
 */
export interface ManagePermission {
  allowed: boolean;
  /** Known to be a member (not while the role is being read): the reason is shown. */
  member: boolean;
  organizationTitle: string;
}

const Permission = createContext<ManagePermission>({ allowed: true, member: false, organizationTitle: '' });

export function ManagePermissionProvider({
  role,
  organizationTitle,
  children,
}: {
  role: 'admin' | 'member' | undefined;
  organizationTitle: string;
  children: ReactNode;
}) {
  return (
    <Permission.Provider value={{ allowed: role === 'admin', member: role === 'member', organizationTitle }}>
      {children}
    </Permission.Provider>
  );
}

export function useManagePermission(): ManagePermission {
  return useContext(Permission);
}

/** "Only admins of Acme can …; you are a member." beside actions a member sees disabled (nothing for admins). */
export function MemberNote({ can }: { can: string }) {
  const permission = useManagePermission();
  if (!permission.member) return null;
  return (
    <p className="muted member-note">
      Only admins of {permission.organizationTitle} can {can}; you are a member.
    </p>
  );
}
