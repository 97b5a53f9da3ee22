// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice A USDC stand-in with the storage profile of Circle's FiatToken v2.2, deployed behind TestTokenProxy, for
/// the gas benches: what a settlement costs depends on which slots a transfer touches, and FiatToken v2.2 keeps an
/// account's blacklist flag in the top bit of its balance word (one slot read for both checks), while TestUSDC, like
/// OpenZeppelin's ERC20, keeps them in two mappings. Its rules are TestUSDC's (FiatToken's revert messages):
/// - a blacklisted address can neither send, receive, approve nor be approved; while paused nothing moves;
/// - the owner mints freely; minters (`configureMinter`) within their allowance, and `burn` what they hold (CCTP).
/// The pauser's address and the paused flag share a slot, as in FiatToken's Pausable. It has no EIP-3009 (the
/// benches do not sign transfers): the sandbox and the tests keep TestUSDC.
contract TestPackedUSDC {
    uint256 private constant BLACKLIST_BIT = 1 << 255;
    uint256 private constant BALANCE_MASK = BLACKLIST_BIT - 1;

    address public owner;
    address public pauser;
    bool public paused;
    bool private _initialized;
    string public name;
    string public symbol;
    uint256 public totalSupply;
    /// @dev An account's balance in the low 255 bits, its blacklist flag in the top one.
    mapping(address account => uint256) private _balanceAndBlacklist;
    mapping(address owner => mapping(address spender => uint256)) public allowance;
    mapping(address minter => bool) public isMinter;
    mapping(address minter => uint256) public minterAllowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Pause();
    event Unpause();
    event Blacklisted(address indexed account);
    event UnBlacklisted(address indexed account);
    event MinterConfigured(address indexed minter, uint256 minterAllowedAmount);
    event MinterRemoved(address indexed oldMinter);
    event Mint(address indexed minter, address indexed to, uint256 amount);
    event Burn(address indexed burner, uint256 amount);

    /// @notice Run once, through the proxy (a constructor would write the implementation's own storage).
    function initialize(string calldata name_, string calldata symbol_, address owner_) external {
        require(!_initialized, "FiatToken: contract is already initialized");
        _initialized = true;
        name = name_;
        symbol = symbol_;
        owner = owner_;
        pauser = owner_;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "Ownable: caller is not the owner");
        _;
    }

    modifier whenNotPaused() {
        require(!paused, "Pausable: paused");
        _;
    }

    modifier notBlacklisted(address account) {
        require(_balanceAndBlacklist[account] & BLACKLIST_BIT == 0, "Blacklistable: account is blacklisted");
        _;
    }

    function decimals() external pure returns (uint8) {
        return 6;
    }

    function balanceOf(address account) external view returns (uint256) {
        return _balanceAndBlacklist[account] & BALANCE_MASK;
    }

    function isBlacklisted(address account) external view returns (bool) {
        return _balanceAndBlacklist[account] & BLACKLIST_BIT != 0;
    }

    function transfer(address to, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(to)
        returns (bool)
    {
        _transfer(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(from)
        notBlacklisted(to)
        returns (bool)
    {
        uint256 allowed = allowance[from][msg.sender];
        require(value <= allowed, "ERC20: transfer amount exceeds allowance");
        _transfer(from, to, value);
        allowance[from][msg.sender] = allowed - value;
        return true;
    }

    function approve(address spender, uint256 value)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(spender)
        returns (bool)
    {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// @notice The owner mints freely (the benches fund deposits this way); a minter within its allowance.
    function mint(address to, uint256 amount)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(to)
        returns (bool)
    {
        require(to != address(0), "FiatToken: mint to the zero address");
        require(amount > 0, "FiatToken: mint amount not greater than 0");
        if (msg.sender != owner) {
            require(isMinter[msg.sender], "FiatToken: caller is not a minter");
            require(amount <= minterAllowance[msg.sender], "FiatToken: mint amount exceeds minterAllowance");
            minterAllowance[msg.sender] -= amount;
        }
        totalSupply += amount;
        _setBalance(to, _balanceOf(to) + amount);
        emit Mint(msg.sender, to, amount);
        emit Transfer(address(0), to, amount);
        return true;
    }

    /// @notice A minter destroys what it holds (CCTP's minter burns what a deposit sent it).
    function burn(uint256 amount) external whenNotPaused notBlacklisted(msg.sender) {
        require(isMinter[msg.sender], "FiatToken: caller is not a minter");
        require(amount > 0, "FiatToken: burn amount not greater than 0");
        uint256 balance = _balanceOf(msg.sender);
        require(balance >= amount, "FiatToken: burn amount exceeds balance");
        totalSupply -= amount;
        _setBalance(msg.sender, balance - amount);
        emit Burn(msg.sender, amount);
        emit Transfer(msg.sender, address(0), amount);
    }

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

    function pause() external {
        require(msg.sender == pauser, "Pausable: caller is not the pauser");
        paused = true;
        emit Pause();
    }

    function unpause() external {
        require(msg.sender == pauser, "Pausable: caller is not the pauser");
        paused = false;
        emit Unpause();
    }

    function blacklist(address account) external onlyOwner {
        _balanceAndBlacklist[account] |= BLACKLIST_BIT;
        emit Blacklisted(account);
    }

    function unBlacklist(address account) external onlyOwner {
        _balanceAndBlacklist[account] &= BALANCE_MASK;
        emit UnBlacklisted(account);
    }

    function _transfer(address from, address to, uint256 value) private {
        require(from != address(0) && to != address(0), "ERC20: transfer to the zero address");
        uint256 fromBalance = _balanceOf(from);
        require(value <= fromBalance, "ERC20: transfer amount exceeds balance");
        _setBalance(from, fromBalance - value);
        _setBalance(to, _balanceOf(to) + value);
        emit Transfer(from, to, value);
    }

    function _balanceOf(address account) private view returns (uint256) {
        return _balanceAndBlacklist[account] & BALANCE_MASK;
    }

    /// @dev A balance never reaches the flag's bit, and a blacklisted account's never changes.
    function _setBalance(address account, uint256 balance) private {
        require(balance <= BALANCE_MASK, "FiatTokenV2_2: Balance exceeds (2^255 - 1)");
        require(_balanceAndBlacklist[account] & BLACKLIST_BIT == 0, "FiatTokenV2_2: Account is blacklisted");
        _balanceAndBlacklist[account] = balance;
    }
}
