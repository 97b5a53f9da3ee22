// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @notice Stand-in for native USDC (Circle's FiatToken v2.2) in the sandbox and tests. It models the public
/// behaviour that decides whether money moves, with FiatToken's own revert messages:
/// - a blacklisted address can neither send nor receive ("Blacklistable: account is blacklisted");
/// - while paused nothing moves ("Pausable: paused");
/// - EIP-3009 signed transfers (`transferWithAuthorization`, `receiveWithAuthorization`, `cancelAuthorization`)
///   under the EIP-712 domain (name, version "2", chain id, this contract), with random 32-byte nonces.
/// - EIP-2612 `permit` under the same domain, with FiatToken's sequential nonces per owner;
/// - minters (`configureMinter`, `removeMinter`) with an allowance, and `burn` of the minter's own balance: how
///   CCTP's TokenMessenger mints on the destination and burns on the source.
/// FiatToken's separate master minter, blacklister and pauser roles are one owner here, who may also mint. Name and
/// symbol are given at deployment: the sandbox deploys a second one as its stand-in for bridged USDC.e.
contract TestUSDC is ERC20, Ownable {
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");
    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    bool public paused;
    mapping(address account => bool) private _blacklisted;
    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizationStates;
    mapping(address owner => uint256) private _permitNonces;
    mapping(address minter => uint256) public minterAllowance;
    mapping(address account => bool) public isMinter;

    event Pause();
    event Unpause();
    event Blacklisted(address indexed account);
    event UnBlacklisted(address indexed account);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);
    event MinterConfigured(address indexed minter, uint256 minterAllowedAmount);
    event MinterRemoved(address indexed oldMinter);
    event Mint(address indexed minter, address indexed to, uint256 amount);
    event Burn(address indexed burner, uint256 amount);

    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) Ownable(msg.sender) {}

    modifier whenNotPaused() {
        require(!paused, "Pausable: paused");
        _;
    }

    modifier notBlacklisted(address account) {
        require(!_blacklisted[account], "Blacklistable: account is blacklisted");
        _;
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice The EIP-712 domain's version, as FiatToken v2 exposes it.
    function version() external pure returns (string memory) {
        return "2";
    }

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(EIP712_DOMAIN_TYPEHASH, keccak256(bytes(name())), keccak256("2"), block.chainid, address(this))
        );
    }

    /// @notice The owner mints freely (tests fund wallets this way); a minter only within its allowance, as
    /// FiatToken's `mint` (which also refuses a blacklisted minter).
    function mint(address to, uint256 amount) external notBlacklisted(msg.sender) returns (bool) {
        if (msg.sender != owner()) {
            require(isMinter[msg.sender], "FiatToken: caller is not a minter");
            require(amount <= minterAllowance[msg.sender], "FiatToken: mint amount exceeds minterAllowance");
            minterAllowance[msg.sender] -= amount;
        }
        _mint(to, amount);
        emit Mint(msg.sender, to, amount);
        return true;
    }

    // --- minters -----------------------------------------------------------------------------------------------

    function configureMinter(address minter, uint256 minterAllowedAmount) external onlyOwner whenNotPaused {
        isMinter[minter] = true;
        minterAllowance[minter] = minterAllowedAmount;
        emit MinterConfigured(minter, minterAllowedAmount);
    }

    function removeMinter(address minter) external onlyOwner {
        isMinter[minter] = false;
        minterAllowance[minter] = 0;
        emit MinterRemoved(minter);
    }

    /// @notice FiatToken's `burn`: a minter destroys tokens it holds (CCTP's minter burns what a deposit sent it).
    function burn(uint256 amount) external notBlacklisted(msg.sender) {
        require(isMinter[msg.sender], "FiatToken: caller is not a minter");
        require(amount > 0, "FiatToken: burn amount not greater than 0");
        require(balanceOf(msg.sender) >= amount, "FiatToken: burn amount exceeds balance");
        _burn(msg.sender, amount);
        emit Burn(msg.sender, amount);
    }

    // --- pause -------------------------------------------------------------------------------------------------

    function pause() external onlyOwner {
        paused = true;
        emit Pause();
    }

    function unpause() external onlyOwner {
        paused = false;
        emit Unpause();
    }

    // --- blacklist ---------------------------------------------------------------------------------------------

    function isBlacklisted(address account) external view returns (bool) {
        return _blacklisted[account];
    }

    function blacklist(address account) external onlyOwner {
        _blacklisted[account] = true;
        emit Blacklisted(account);
    }

    function unBlacklist(address account) external onlyOwner {
        _blacklisted[account] = false;
        emit UnBlacklisted(account);
    }

    // --- ERC-20 with FiatToken's checks ------------------------------------------------------------------------

    function approve(address spender, uint256 value)
        public
        override
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(spender)
        returns (bool)
    {
        return super.approve(spender, value);
    }

    function transferFrom(address from, address to, uint256 value)
        public
        override
        notBlacklisted(msg.sender)
        returns (bool)
    {
        return super.transferFrom(from, to, value);
    }

    /// @dev Every movement (transfer, transferFrom, mint, signed transfers) passes here: paused or a blacklisted
    /// party stops it, as FiatToken's modifiers do on each entry point.
    function _update(address from, address to, uint256 value)
        internal
        override
        whenNotPaused
        notBlacklisted(from)
        notBlacklisted(to)
    {
        super._update(from, to, value);
    }

    // --- EIP-2612 ----------------------------------------------------------------------------------------------

    function nonces(address owner) external view returns (uint256) {
        return _permitNonces[owner];
    }

    /// @notice FiatToken v2's `permit`: an allowance granted by the owner's signature, whoever submits it.
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
        whenNotPaused
        notBlacklisted(owner)
        notBlacklisted(spender)
    {
        require(deadline >= block.timestamp, "FiatTokenV2: permit is expired");
        bytes32 structHash =
            keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _permitNonces[owner]++, deadline));
        bytes32 digest = MessageHashUtils.toTypedDataHash(DOMAIN_SEPARATOR(), structHash);
        require(SignatureChecker.isValidSignatureNow(owner, digest, abi.encodePacked(r, s, v)), "EIP2612: invalid signature");
        _approve(owner, spender, value);
    }

    // --- EIP-3009 ----------------------------------------------------------------------------------------------

    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    /// @notice FiatToken v2.2's variant taking the signature as bytes (also an EIP-1271 signature of a contract).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)
        external
        whenNotPaused
    {
        _requireUnusedAuthorization(authorizer, nonce);
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        _requireValidSignature(authorizer, structHash, abi.encodePacked(r, s, v));
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    function _transferWithAuthorization(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        _requireUnusedAuthorization(from, nonce);
        bytes32 structHash = keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce));
        _requireValidSignature(from, structHash, signature);
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _requireUnusedAuthorization(address authorizer, bytes32 nonce) private view {
        require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
    }

    function _requireValidSignature(address signer, bytes32 structHash, bytes memory signature) private view {
        bytes32 digest = MessageHashUtils.toTypedDataHash(DOMAIN_SEPARATOR(), structHash);
        require(SignatureChecker.isValidSignatureNow(signer, digest, signature), "FiatTokenV2: invalid signature");
    }
}
