// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice A delegating proxy with the cost profile of Circle's FiatTokenProxy (an AdminUpgradeabilityProxy): each
/// call reads the admin from its slot (the admin may not use the token through it), reads the implementation from
/// its slot, and delegatecalls it. Used by the gas benches (bench/settlementGas.ts, bench/crossChainGas.ts) so that
/// what they measure costs what it costs on native USDC, whose every call pays these two reads and the extra frame.
/// Not upgradeable: the benches never need it to be, and a test contract with no way to change is simpler.
contract TestTokenProxy {
    /// @dev Slots of their own, far from the implementation's storage (which starts at slot 0).
    bytes32 private constant ADMIN_SLOT = keccak256("paylink.TestTokenProxy.admin");
    bytes32 private constant IMPLEMENTATION_SLOT = keccak256("paylink.TestTokenProxy.implementation");

    /// @param implementation The token's logic; `initData` is delegatecalled to it once (its initializer).
    constructor(address implementation, address admin, bytes memory initData) {
        bytes32 adminSlot = ADMIN_SLOT;
        bytes32 implementationSlot = IMPLEMENTATION_SLOT;
        assembly {
            sstore(adminSlot, admin)
            sstore(implementationSlot, implementation)
        }
        (bool ok, bytes memory reason) = implementation.delegatecall(initData);
        if (!ok) {
            assembly {
                revert(add(reason, 32), mload(reason))
            }
        }
    }

    fallback() external payable {
        bytes32 adminSlot = ADMIN_SLOT;
        bytes32 implementationSlot = IMPLEMENTATION_SLOT;
        address admin;
        address implementation;
        assembly {
            admin := sload(adminSlot)
        }
        require(msg.sender != admin, "Cannot call fallback function from the proxy admin");
        assembly {
            implementation := sload(implementationSlot)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), implementation, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 { revert(0, returndatasize()) }
            default { return(0, returndatasize()) }
        }
    }
}
